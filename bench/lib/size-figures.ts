// Figure 9's figures for one span (no query running, or cold scans) on one
// server size, from the readings taken on both sides of it: inflight's
// role in pg_stat_statements (exact, every statement), the samples
// /api/targets counts (the wait-event cadence), the burst samples and cost
// counters of /metrics, and the page's own `cost` at the span's end. Pure.
import type { WatchCostLite } from "./inflight";
import { meanMs, perStatement, type RoleDelta } from "./pgss";
import { r3, r5 } from "./stats";

export interface SpanReadings {
  seconds: number;
  /** inflight's role, pg_stat_statements over the span */
  delta: RoleDelta;
  /** slot samples and misses (/api/targets) over the span */
  samples: number;
  missed: number;
  /** burst samples (inflight_samples_extra_total) over the span; null when /metrics could not say */
  extraSamples: number | null;
  /** inflight_target_cost_seconds_total by statement over the span; null when /metrics could not say */
  costSeconds: Record<string, number> | null;
  /** the target payload's cost at the span's end (its last 10 s) */
  page: WatchCostLite;
  /** CPU of inflight's backend over the span, share of a core */
  backendCpu: number | null;
}

/** What a counter by label rose by between two readings (labels new in `after` count from zero). */
export function counterDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]));
}

export function spanFigures(r: SpanReadings) {
  const s = r.seconds;
  const calls = (file: string) => r.delta.byFile[file]?.calls ?? 0;
  const metricsMs = r.costSeconds ? Object.values(r.costSeconds).reduce((n, x) => n + x, 0) * 1000 : null;
  return {
    seconds: r3(s),
    /** every statement of inflight's role, ms of server time per second */
    msPerSecond: r3(r.delta.totalExecMs / s),
    byStatement: perStatement(r.delta, s),
    /** the wait-event sample in its slots (/api/targets samples) */
    waitEventsPerSecond: r3(r.samples / s),
    missed: r.missed,
    burstPerSecond: r.extraSamples === null ? null : r3(r.extraSamples / s),
    /** activity.sql's calls: slot samples and burst samples */
    activityCallsPerSecond: r3(calls("activity") / s),
    activityMeanMs: r3(meanMs(r.delta, "activity")),
    aiosReadsPerSecond: r3(calls("aios") / s),
    aiosMeanMs: r3(meanMs(r.delta, "aios")),
    /** what the page says (its last 10 s at the span's end) */
    page: {
      msPerSecond: r.page.msPerSecond,
      aiosIntervalMs: r.page.aios.intervalMs,
      aiosMsPerRead: r.page.aios.msPerRead,
      aiosSkipped: r.page.aios.skipped,
      note: r.page.note,
    },
    /** what /metrics says watching cost over the whole span, in all and by statement */
    metricsMsPerSecond: metricsMs === null ? null : r3(metricsMs / s),
    metricsByStatement: r.costSeconds
      ? Object.fromEntries(
          Object.entries(r.costSeconds)
            .filter(([, x]) => x > 0)
            .map(([k, x]) => [k, r3((x * 1000) / s)]),
        )
      : null,
    backendCpu: r5(r.backendCpu),
  };
}

export type SpanFigures = ReturnType<typeof spanFigures>;

/** Figure 9's goal for the wait-event cadence at every size (the fast cadence is 10 a second). */
export const MIN_WAIT_EVENTS_PER_SECOND = 9.5;

/** Figure 9's goals for one span: within the budget, wait events at >= 9.5 a second; null when a figure is missing. */
export function spanMeetsGoals(f: Pick<SpanFigures, "msPerSecond" | "waitEventsPerSecond">, budgetMsPerSecond: number): boolean | null {
  if (typeof f.msPerSecond !== "number" || typeof f.waitEventsPerSecond !== "number") return null;
  return f.msPerSecond <= budgetMsPerSecond && f.waitEventsPerSecond >= MIN_WAIT_EVENTS_PER_SECOND;
}
