// What this server's own history measured of each statement under each
// io_method (pure): the page's before/after around the last restart that
// changed io_method, reduced to what a finding may quote. Advice cites this,
// or the lab, never a figure from elsewhere.
import type { CompareResponse } from "../../schemas/compare";
import { MIN_CALLS } from "./compare";

/** One statement's mean under the io_method before and after a restart that changed it. */
export interface MethodMeasure {
  /** the restart (its new postmaster start), ms */
  at: number;
  before: { ioMethod: string; meanMs: number; calls: number };
  after: { ioMethod: string; meanMs: number; calls: number };
  /** "faster by 27% (6 vs 6 calls; outside the spread)" or "no measurable difference ..." */
  verdict: string;
  /** the after side against the before side */
  kind: "faster" | "slower" | "same";
}

/** per queryid */
export type MethodMeasures = ReadonlyMap<string, MethodMeasure>;

export const NO_MEASURES: MethodMeasures = new Map();

/** The workload's statements with enough calls on both sides of a restart that changed io_method. */
export function methodMeasures(c: CompareResponse): Map<string, MethodMeasure> {
  const change = c.restart ? c.changes.find((ch) => ch.name === "io_method") : undefined;
  const out = new Map<string, MethodMeasure>();
  if (!c.restart || !change?.before || !change.after) return out;
  for (const r of c.rows) {
    if (r.housekeeping || r.before.calls < MIN_CALLS || r.after.calls < MIN_CALLS || r.verdict.kind === "too_few") continue;
    out.set(r.queryId, {
      at: c.restart.at,
      before: { ioMethod: change.before, meanMs: r.before.meanMs, calls: r.before.calls },
      after: { ioMethod: change.after, meanMs: r.after.meanMs, calls: r.after.calls },
      verdict: r.verdict.text,
      kind: r.verdict.kind,
    });
  }
  return out;
}
