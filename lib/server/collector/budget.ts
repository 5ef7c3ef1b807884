import "server-only";

// The budget of server time that watching may cost a target (INFLIGHT_BUDGET):
// what the CostMeter (cost.ts) charges is spent here, and the reads that can be
// put off (pg_aios first) ask here first.

/** Costs are estimates (the newest exact figure is up to 10 s old): aim this far under the budget. */
const HEADROOM = 0.9;
/** The budget holds over any span this long, not only on average (issue 21). */
export const BUDGET_WINDOW_MS = 20_000;

/**
 * Server time, charged when each call is made: a token bucket that fills at
 * (a tenth under) the budget's rate and holds at most one second of it, so
 * that reads are spread out, and a ledger of the last BUDGET_WINDOW_MS, so
 * that a read that would take the window over (a tenth under) the budget is
 * put off before it runs. Over any 20 s the server time charged stays within
 * the budget, but for what no budget puts off: the sample itself (its
 * interval is stretched instead, see interval()), and pg_aios's floor of one
 * read every 10 s while backends run (steps/sampling.ts, AIOS_FLOOR_MS). A
 * read that alone costs more than the window's budget is never afforded:
 * the floor alone reads it.
 */
export class Budget {
  private tokens: number;
  private at: number;
  /** charges of the last BUDGET_WINDOW_MS, oldest first, and their sum */
  private ledger: { t: number; ms: number }[] = [];
  private inWindow = 0;

  constructor(
    readonly msPerSecond: number,
    now: number,
  ) {
    this.tokens = msPerSecond;
    this.at = now;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.msPerSecond, this.tokens + ((now - this.at) / 1000) * this.msPerSecond * HEADROOM);
    this.at = now;
  }

  private trim(now: number): void {
    while (this.ledger.length && this.ledger[0].t <= now - BUDGET_WINDOW_MS) this.inWindow -= this.ledger.shift()!.ms;
    if (!this.ledger.length) this.inWindow = 0;
  }

  /** Server ms charged over the BUDGET_WINDOW_MS up to now. */
  spentInWindow(now: number): number {
    this.trim(now);
    return this.inWindow;
  }

  /** The window's budget less a tenth: what the reads that can be put off may fill it up to. */
  private get windowLimit(): number {
    return (this.msPerSecond * HEADROOM * BUDGET_WINDOW_MS) / 1000;
  }

  /** A full bucket affords one read costlier than a second of budget (a very
   * large server): the debt is paid before the next. The window never goes over. */
  affords(ms: number, now: number): boolean {
    this.refill(now);
    return this.tokens >= Math.min(ms, this.msPerSecond) && this.spentInWindow(now) + ms <= this.windowLimit;
  }

  spend(ms: number, now: number): void {
    this.refill(now);
    this.tokens -= ms;
    this.record(now, ms);
  }

  /**
   * Server time that calls made over (from, now] took beyond their charges
   * (pg_stat_statements says so afterwards): entered in the ledger over the
   * span it was spent in, so the window sees what the server spent, and not
   * taken from the bucket at once, which would stop pg_aios for seconds to
   * repay what is past.
   */
  owe(ms: number, from: number, now: number): void {
    if (!(ms > 0)) return;
    const start = Math.max(from, now - BUDGET_WINDOW_MS);
    if (start >= now) return this.record(now, ms);
    // Spread over the span, oldest first: the ledger stays in time order.
    const parts = 10;
    const older = this.ledger.filter((c) => c.t <= start);
    const newer = this.ledger.filter((c) => c.t > start);
    const spread = Array.from({ length: parts }, (_, i) => ({ t: start + ((i + 1) * (now - start)) / parts, ms: ms / parts }));
    this.ledger = [...older, ...[...newer, ...spread].sort((a, b) => a.t - b.t)];
    this.inWindow += ms;
  }

  private record(t: number, ms: number): void {
    this.ledger.push({ t, ms });
    this.inWindow += ms;
    this.trim(t);
  }

  /**
   * The interval at which a statement of this cost, run regularly, takes no
   * more than `share` of the budget; never shorter than `baseMs`. Only an
   * exact cost (inflight's own pg_stat_statements entry) stretches it: a
   * round trip holds the network too, which costs the server nothing.
   */
  interval(baseMs: number, exactCostMs: number | null, share: number): number {
    if (exactCostMs === null) return baseMs;
    return Math.max(baseMs, Math.ceil((exactCostMs / (share * this.msPerSecond)) * 1000));
  }
}
