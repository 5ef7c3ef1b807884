// A finding's evidence from this server's own history (pure): what a
// statement took under each io_method here, from the page's before/after,
// or how to measure it when the history has no such comparison.
import { formatClock, formatDuration } from "../../format";
import type { MethodMeasures } from "../../history/measured";

/** How to measure what the history has not: the lab. */
export const MEASURE_WITH_LAB = "measure it on a copy with the lab (npm run lab, or the lab button of the demo)";

/**
 * "this statement took 6.3 s under worker against 8.6 s under sync here
 * (before/after 18:35:42): faster by 27% (6 vs 6 calls; outside the spread)",
 * or null when the history compared it under no two io_methods.
 */
export function measuredClause(queryId: string | null, measures: MethodMeasures | undefined): string | null {
  const m = queryId ? measures?.get(queryId) : undefined;
  if (!m) return null;
  const [newer, older] = [m.after, m.before];
  return `this statement took ${formatDuration(newer.meanMs)} under ${newer.ioMethod} against ${formatDuration(older.meanMs)} under ${older.ioMethod} here (before/after ${formatClock(m.at)}): ${m.verdict}`;
}
