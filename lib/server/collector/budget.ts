import "server-only";

// The budget of server time that watching may cost a target (INFLIGHT_BUDGET):
// what the CostMeter (cost.ts) charges is spent here, and the reads that can be
// put off (pg_aios first) ask here first.

/** Costs are estimates (the newest exact figure is up to 10 s old): aim this far under the budget. */
export const HEADROOM = 0.9;
/** The budget holds over any span this long, not only on average (issue 21). */
export const BUDGET_WINDOW_MS = 20_000;
/** pg_aios is read at least this often while backends run, where the window has room for it. */
export const AIOS_FLOOR_MS = 10_000;
/** A pg_aios read that never fits beside the wait events is still tried, so that the page learns
 * when it costs less again (a machine that was loaded, or one slow first read): the one charge past
 * the window. First this long after the last read, then twice as long each time it still does not
 * fit, up to AIOS_PROBE_MS. */
export const AIOS_PROBE_FIRST_MS = 30_000;
export const AIOS_PROBE_MS = 300_000;

/** The wait before the next probe of pg_aios: doubled after a probe that still did not fit, from the first again after a read that did. */
export function nextProbeMs(currentMs: number, probedUnfit: boolean): number {
  return probedUnfit ? Math.min(AIOS_PROBE_MS, currentMs * 2) : AIOS_PROBE_FIRST_MS;
}
/** The wait-event sample may take at most this share of the budget before its cadence is stretched:
 * it comes first; pg_aios is what the rest of the budget spaces out. Less where the other reads
 * (pg_stat_io, pg_stat_statements, the settings: measured over the last 10 s) and pg_aios's floor
 * need more than the rest, a tenth under the budget (samplingShare): a fixed share either starves
 * the sample where the other reads are cheap or lets the whole pass the budget where they are dear
 * (BENCHMARKS.md, figure 9). */
export const SAMPLING_SHARE = 0.8;
/** What the other reads are taken to cost, as a share of the budget, until their cost is measured
 * over a whole window of a session (its first reads are charged at their round trips). */
export const OTHERS_SHARE_ASSUMED = 0.15;
/** A floor read costing at most this share of the window is never put off: two a window (one every
 * AIOS_FLOOR_MS) fit in the tenth of headroom the reads that can wait leave. */
const FLOOR_FREE = (1 - HEADROOM) / (BUDGET_WINDOW_MS / AIOS_FLOOR_MS);
/** However costly pg_aios is here, the wait-event sample keeps at least this share. */
const MIN_SAMPLING_SHARE = 0.3;

/**
 * Server time, charged when each call is made: a token bucket that fills at
 * (a tenth under) the budget's rate and holds at most one second of it, so
 * that reads are spread out, and a ledger of the last BUDGET_WINDOW_MS, so
 * that a read that would take the window over (a tenth under) the budget is
 * put off before it runs. The wait-event sample is never put off: its
 * interval is stretched instead (interval(), samplingShare()), so that it
 * leaves room for pg_aios's floor of one read every AIOS_FLOOR_MS while
 * backends run, which passes the bucket, and the window too where it is
 * cheap enough to fit in the headroom (affordsFloor()).
 * Over any 20 s the server time charged stays within the budget, but for an
 * estimate that fell short (settled afterwards) and a read too costly to
 * ever fit, tried after AIOS_PROBE_FIRST_MS and less often after, up to every AIOS_PROBE_MS (Pace.aios).
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
    return Math.max(0, this.inWindow);
  }

  /** The server ms the budget allows over BUDGET_WINDOW_MS. */
  get windowMs(): number {
    return (this.msPerSecond * BUDGET_WINDOW_MS) / 1000;
  }

  /** The window's budget less a tenth: what the reads that can be put off may fill it up to. */
  private get windowLimit(): number {
    return this.windowMs * HEADROOM;
  }

  /** A full bucket affords one read costlier than a second of budget (a very
   * large server): the debt is paid before the next. The window never goes over. */
  affords(ms: number, now: number): boolean {
    this.refill(now);
    return this.tokens >= Math.min(ms, this.msPerSecond) && this.spentInWindow(now) + ms <= this.windowLimit;
  }

  /**
   * pg_aios's floor read: past the bucket (it may run it into debt). One that
   * costs little (two a window fit in the tenth the other reads leave) is never
   * put off, whatever the window holds: right after the start, or on a loaded
   * machine, the window fills with round trips that are mostly our own wait
   * until pg_stat_statements gives their cost, and pg_aios must not go unread
   * for that. A costlier one must fit in the window's budget.
   */
  affordsFloor(ms: number, now: number): boolean {
    return ms <= FLOOR_FREE * this.windowMs || this.spentInWindow(now) + ms <= this.windowMs;
  }

  /**
   * The share of the budget the wait-event sample may take: what is left, a
   * tenth under the budget, by the other reads (`othersMsPerSecond`, measured
   * over the last 10 s; null: not yet measured, OTHERS_SHARE_ASSUMED) and
   * pg_aios's floor (a read of `aiosMs` every AIOS_FLOOR_MS), at most
   * SAMPLING_SHARE: on a loaded 1000 x 64 server a pg_aios read took 30 ms,
   * and the floor alone 3 of 5 ms/s. Never under MIN_SAMPLING_SHARE: past
   * that, pg_aios is read only where it fits.
   */
  samplingShare(aiosMs: number, othersMsPerSecond: number | null): number {
    const floor = aiosMs / ((AIOS_FLOOR_MS / 1000) * this.msPerSecond);
    const others = othersMsPerSecond === null ? OTHERS_SHARE_ASSUMED : othersMsPerSecond / this.msPerSecond;
    return Math.max(MIN_SAMPLING_SHARE, Math.min(SAMPLING_SHARE, HEADROOM - floor - others));
  }

  /** The bucket runs into a debt of at most a second of budget: it spaces reads out, and the
   * window, which keeps every charge whole, is what holds the budget. Unbounded, one slow first
   * round trip on a loaded machine put pg_aios off for over 90 s while the window had room. */
  spend(ms: number, now: number): void {
    this.refill(now);
    this.tokens = Math.max(-this.msPerSecond, this.tokens - ms);
    this.record(now, ms);
  }

  /**
   * Server time that calls made over (from, now] took beyond their charges
   * (pg_stat_statements says so afterwards), or, negative, what they were
   * charged beyond what they took (a round trip under load is mostly our own
   * wait; a first call's parse and plan): entered in the ledger over the span
   * it was spent in, so the window holds what the server spent, and not taken
   * from the bucket at once, which would stop pg_aios for seconds to repay
   * what is past (or let it through in a burst).
   */
  settle(ms: number, from: number, now: number): void {
    if (!ms) return;
    // A charge given back is given back to the bucket too (it was taken from it); a debt is not.
    if (ms < 0) {
      this.refill(now);
      this.tokens = Math.min(this.msPerSecond, this.tokens - ms);
    }
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

/** The INFLIGHT_BUDGET (ms/s, whole) that affords the wait events at `sampleMsPerSecond` and
 * pg_aios's floor of a read of `aiosMs` every AIOS_FLOOR_MS, a tenth under. */
export function budgetAffording(sampleMsPerSecond: number, aiosMs: number): number {
  return Math.ceil(Math.max(sampleMsPerSecond / SAMPLING_SHARE, (sampleMsPerSecond + aiosMs / (AIOS_FLOOR_MS / 1000)) / HEADROOM));
}
