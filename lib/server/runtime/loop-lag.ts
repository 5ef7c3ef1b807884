import "server-only";

// This process's own event-loop delay. Under load (many viewers, a burst of
// requests) a callback can run long after it was due; the statement guards
// ask here before they call a target silent, so that our own lag is never
// read as the target's.
//
// Measured by a tick of our own rather than perf_hooks' monitorEventLoopDelay:
// that histogram's reset() also forgets when its timer last fired, so a
// hold-up that ends just before a reset is never recorded (Node 20, checked:
// 400 ms held, then reset, read back as 10.7 ms). Here a slice closes
// without forgetting the last tick, and a hold-up still going on when asked
// is counted too.

const TICK_MS = 10;
const SLICE_MS = 250;
const KEEP_SLICES = 240;

export class LoopLag {
  /** the longest delay in each past slice, newest last; `end` on performance.now()'s clock */
  private readonly slices: { end: number; maxMs: number }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private lastTick = 0;
  private sliceStart = 0;
  private sliceMaxMs = 0;

  start(): void {
    if (this.timer) return;
    this.lastTick = this.sliceStart = performance.now();
    this.sliceMaxMs = 0;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** How late the next tick already is: a hold-up under way, or one that ended before its tick ran. */
  private pendingMs(now: number): number {
    return this.timer ? Math.max(0, now - this.lastTick - TICK_MS) : 0;
  }

  private tick(): void {
    const now = performance.now();
    this.sliceMaxMs = Math.max(this.sliceMaxMs, this.pendingMs(now));
    this.lastTick = now;
    if (now - this.sliceStart < SLICE_MS) return;
    this.slices.push({ end: now, maxMs: this.sliceMaxMs });
    if (this.slices.length > KEEP_SLICES) this.slices.splice(0, this.slices.length - KEEP_SLICES);
    this.sliceStart = now;
    this.sliceMaxMs = 0;
  }

  /** The longest delay seen since `t` (performance.now() ms), to within one slice before it. */
  maxSince(t: number): number {
    let max = Math.max(this.sliceMaxMs, this.pendingMs(performance.now()));
    for (let i = this.slices.length - 1; i >= 0 && this.slices[i].end > t; i--) max = Math.max(max, this.slices[i].maxMs);
    return max;
  }
}
