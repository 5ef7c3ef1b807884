import "server-only";

/**
 * The tick clock of one collector: calls `tick` every `interval()` ms, on
 * absolute slots so that a late tick does not drift the ones after it. At
 * most one tick runs at a time. A slot that falls due while one runs waits
 * for it, and runs when it ends if that is still within the slot (before
 * the next is due): a tick that our own event loop started late must not
 * cost the next slot its sample. A slot whose time passed while it waited,
 * or while the event loop was held up past it, is counted as missed, never
 * queued beyond its own time.
 */
export class Schedule {
  private timer: NodeJS.Timeout | null = null;
  private extraTimer: NodeJS.Timeout | null = null;
  private nextDue = 0;
  private running = false;
  /** a slot that fell due while a tick ran, waiting for it to end */
  private waiting = false;
  /** an extra run that fell due while a tick ran, waiting for it to end */
  private extraWaiting: { fn: (now: number) => Promise<void>; delayMs: number } | null = null;
  private stopped = true;

  constructor(
    private readonly interval: () => number,
    /** false: the tick could not run (no session): it counts as missed */
    private readonly tick: (now: number) => Promise<boolean> | boolean,
    private readonly missed: (n: number) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.nextDue = Date.now();
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.waiting = false;
    this.extraWaiting = null;
    if (this.timer) clearTimeout(this.timer);
    if (this.extraTimer) clearTimeout(this.extraTimer);
    this.timer = this.extraTimer = null;
  }

  /**
   * One extra run of `fn` in `delayMs`, between the slots (a burst of
   * samples), and never two at once. One that falls due while a tick runs
   * waits for it and runs when it ends, unless a slot is waiting then too
   * (that slot's sample is taken instead) or the next slot is due within
   * `delayMs` (it would sample the same moment): then it is skipped, not
   * missed. The slots do not move: one that falls due during it waits for
   * it, as for a tick.
   */
  extra(delayMs: number, fn: (now: number) => Promise<void>): void {
    if (this.stopped || this.extraTimer || this.extraWaiting) return;
    this.extraTimer = setTimeout(() => {
      this.extraTimer = null;
      if (this.stopped) return;
      if (this.running) this.extraWaiting = { fn, delayMs };
      else this.runExtra(fn);
    }, delayMs);
  }

  /** The interval changed: the next tick is due now. */
  reset(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.nextDue = Date.now();
    this.arm();
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.onDue(), Math.max(0, this.nextDue - Date.now()));
  }

  private onDue(): void {
    const now = Date.now();
    const interval = this.interval();
    // Slots that passed while the event loop was held up count as missed.
    const late = Math.floor((now - this.nextDue) / interval);
    if (late > 0) {
      this.missed(late);
      this.nextDue += late * interval;
    }
    this.nextDue += interval;
    this.arm();
    if (this.running) {
      // One slot waits at most: the one waiting already has lost its time.
      if (this.waiting) this.missed(1);
      this.waiting = true;
      return;
    }
    this.run(now);
  }

  private run(now: number): void {
    this.running = true;
    void Promise.resolve()
      .then(() => this.tick(now))
      .then((ran) => {
        if (!ran) this.missed(1);
      })
      .finally(() => this.ended());
  }

  private runExtra(fn: (now: number) => Promise<void>): void {
    this.running = true;
    void fn(Date.now()).finally(() => this.ended());
  }

  /** A tick or an extra run ended: a slot that fell due meanwhile takes its sample now, if still
   * within its time; otherwise an extra run that fell due meanwhile runs now, if the next slot is not close. */
  private ended(): void {
    this.running = false;
    const extra = this.extraWaiting;
    this.extraWaiting = null;
    if (this.stopped) return;
    const at = Date.now();
    if (this.waiting) {
      this.waiting = false;
      if (at < this.nextDue) this.run(at);
      else this.missed(1);
    } else if (extra && this.nextDue - at > extra.delayMs) this.runExtra(extra.fn);
  }
}
