import "server-only";
import type { QueryName } from "../pg/queries";
import { AIOS_FLOOR_MS, BUDGET_WINDOW_MS, nextProbeMs, type Budget } from "./budget";
import type { CostMeter } from "./cost";
import type { CollectorStats } from "./stats";
import type { Cadence } from "./steps/step";

/** The reads the budget's share for the sample leaves out of "the other reads". */
const SAMPLE_AND_AIOS: ReadonlySet<QueryName> = new Set(["activity", "aios"]);

/** The budget's answer for a pg_aios read a sample wants: read it (and the wait before the next
 * probe, nextProbeMs), or put it off (`starved`: though due at its floor). */
export type AiosAdmission = { kind: "read"; probeMs: number } | { kind: "put-off"; starved: boolean };

/**
 * Where the collector asks the budget, and the only place: the sampling
 * interval in force, whether a periodic read is due (its cadence stretched
 * by its cost), whether a sample reads pg_aios, and whether a burst of
 * samples fits. The steps say what they want; they never ask the budget.
 */
export class Pace {
  constructor(
    private readonly budget: Budget,
    private readonly cost: CostMeter,
    private readonly stats: CollectorStats,
    /** since when a session has been up; null while none is */
    private readonly upSince: () => number | null,
    private readonly startedAt: number,
  ) {}

  /** The interval asked for, stretched when the wait-event sample would take more than its share
   * of the budget (a very large server). */
  intervalMs(askedMs: number, now: number): number {
    return this.budget.interval(askedMs, this.cost.exact("activity", now), this.samplingShare(now));
  }

  /** A periodic read's cadence has come round: stretched so that its statement, at its exact cost
   * (inflight's own pg_stat_statements entry), takes no more than its share of the budget. */
  due(cadence: Cadence, now: number): boolean {
    const { lastAt, everyMs, stretch } = cadence;
    return now - lastAt >= (stretch ? this.budget.interval(everyMs, this.cost.exact(stretch.statement, now), stretch.share) : everyMs);
  }

  /**
   * Whether a sample reads pg_aios, `sinceMs` after the last read: put off
   * before it runs, at what it will be charged (the window is held, not
   * repaid after). At least one read every AIOS_FLOOR_MS while backends run,
   * past the bucket, and within the window where it is costly (the wait
   * events leave it room, Budget.samplingShare); one that never fits is
   * tried all the same after 30 s, then less often (`probeMs`, nextProbeMs),
   * to see whether it still costs that much: one slow first read must not
   * keep it unread for minutes. The cost note names both.
   */
  aios(want: { sinceMs: number; probeMs: number }, now: number): AiosAdmission {
    const ms = this.cost.latest("aios", now);
    const floor = want.sinceMs >= AIOS_FLOOR_MS;
    const fits = floor ? this.budget.affordsFloor(ms, now) : this.budget.affords(ms, now);
    if (!fits && want.sinceMs < want.probeMs) return { kind: "put-off", starved: floor };
    return { kind: "read", probeMs: nextProbeMs(want.probeMs, !fits) };
  }

  /** `samples` more samples (the wait events and pg_aios) fit in the budget now. */
  affordsSamples(samples: number, now: number): boolean {
    const cost = this.cost.latest("activity", now) + this.cost.latest("aios", now);
    return this.budget.affords(cost * samples, now);
  }

  /** The wait-event sample's share of the budget: less where the other reads and pg_aios's floor need the room (Budget). */
  samplingShare(now: number): number {
    return this.budget.samplingShare(this.stats.statements.has("aios") ? this.cost.latest("aios", now) : 0, this.othersMsPerSecond(now));
  }

  /** What the reads other than the sample and pg_aios took over the last 10 s, once a session has
   * been up for a whole budget window (before that, its first reads at their round trips): null. */
  othersMsPerSecond(now: number): number | null {
    const since = this.upSince();
    if (since === null || now - since < BUDGET_WINDOW_MS) return null;
    return this.cost.msPerSecond(now, this.startedAt, SAMPLE_AND_AIOS);
  }
}
