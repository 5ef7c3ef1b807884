import "server-only";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";

// This process's own event-loop delay, measured by perf_hooks. Under load
// (many viewers, a burst of requests) a callback can run long after it was
// due; the statement guards ask here before they call a target silent, so
// that our own lag is never read as the target's.

const RESOLUTION_MS = 10;
const SLICE_MS = 250;
const KEEP_SLICES = 240;

export class LoopLag {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  /** the longest delay in each past slice, newest last; `end` on performance.now()'s clock */
  private readonly slices: { end: number; maxMs: number }[] = [];
  private timer: NodeJS.Timeout | null = null;

  start(): void {
    if (this.timer) return;
    this.histogram.enable();
    this.timer = setInterval(() => this.roll(), SLICE_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.histogram.disable();
  }

  private roll(): void {
    this.slices.push({ end: performance.now(), maxMs: this.currentMaxMs() });
    if (this.slices.length > KEEP_SLICES) this.slices.splice(0, this.slices.length - KEEP_SLICES);
    this.histogram.reset();
  }

  private currentMaxMs(): number {
    return this.histogram.count > 0 ? this.histogram.max / 1e6 : 0;
  }

  /** The longest delay seen since `t` (performance.now() ms), to within one slice before it. */
  maxSince(t: number): number {
    let max = this.currentMaxMs();
    for (let i = this.slices.length - 1; i >= 0 && this.slices[i].end > t; i--) max = Math.max(max, this.slices[i].maxMs);
    return max;
  }
}
