import "server-only";
import type { QueryName } from "../pg/queries";
import { BUDGET_WINDOW_MS, type Budget } from "./budget";
import type { CostMeter } from "./cost";
import type { CollectorStats } from "./stats";

/** The reads the budget's share for the sample leaves out of "the other reads". */
const SAMPLE_AND_AIOS: ReadonlySet<QueryName> = new Set(["activity", "aios"]);

/** The sampling interval in force, from the interval asked for and what the budget leaves the sample. */
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
