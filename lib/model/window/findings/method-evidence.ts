// Whether this server's own history backs advice to change io_method
// (pure): the same statement's slow runs in the window under each io_method,
// and the history's before/after of its mean. Advice
// the history contradicts is never given; advice it has not measured says so.
import { formatDuration } from "../../../format";
import type { MethodMeasure, MethodMeasures } from "../../compare/measured";
import type { QueryRun } from "../../../schemas/runs";
import type { MethodRun } from "../method-runs";

/** A method is a gain only when its median run is at least this much shorter. */
export const METHOD_GAIN_SHARE = 0.1;

export interface MethodEvidence {
  /** gain: `to` measured faster here; no_gain: measured, and not faster; unmeasured: nothing to go on */
  kind: "gain" | "no_gain" | "unmeasured";
  /** what was seen, in words: "under worker: 13-16 s, 3 runs; under sync: 13 s, 1 run" */
  text: string | null;
}

/** Durations (ms) of the slow runs of one statement (by query id, else by text), by the io_method they ran under. */
export function runsByMethod(run: QueryRun, runs: readonly MethodRun[]): Map<string, number[]> {
  const same = (r: MethodRun) => (run.queryId && r.queryId ? r.queryId === run.queryId : r.query === run.query);
  const out = new Map<string, number[]>();
  for (const r of runs) if (same(r)) out.set(r.ioMethod, [...(out.get(r.ioMethod) ?? []), r.ms]);
  return out;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/** "13-16 s, 3 runs"; "0.8-1.1 s, 2 runs"; "13 s, 1 run": one unit for both ends. */
function spread(ms: readonly number[]): string {
  const [lo, hi] = [formatDuration(Math.min(...ms)), formatDuration(Math.max(...ms))];
  const unit = (d: string) => / (\S+)$/.exec(d)?.[1] ?? "";
  const low =
    unit(lo) === unit(hi) ? lo.replace(/ \S+$/, "") : unit(hi) === "s" && unit(lo) === "ms" ? (Math.min(...ms) / 1000).toFixed(1) : lo;
  return `${lo === hi ? hi : `${low}-${hi}`}, ${ms.length} run${ms.length === 1 ? "" : "s"}`;
}

/** Whether the history's before/after says `to` was faster than `from`, or not. */
function measureSays(m: MethodMeasure, from: string, to: string): MethodEvidence | null {
  const sides = [m.before.ioMethod, m.after.ioMethod];
  if (!sides.includes(from) || !sides.includes(to)) return null;
  const toMs = m.after.ioMethod === to ? m.after.meanMs : m.before.meanMs;
  const fromMs = m.after.ioMethod === from ? m.after.meanMs : m.before.meanMs;
  const text = `pg_stat_statements here: ${formatDuration(toMs)} under ${to} against ${formatDuration(fromMs)} under ${from} (${m.verdict})`;
  const toFaster = m.after.ioMethod === to ? m.kind === "faster" : m.kind === "slower";
  return { kind: toFaster ? "gain" : "no_gain", text };
}

/**
 * What this server's history says of moving `run`'s statement from the
 * io_method `from` to `to`: its slow runs in the window under each
 * (method-runs.ts), else the history's before/after of its mean.
 */
export function methodEvidence(
  run: QueryRun,
  from: string,
  to: string,
  runs: readonly MethodRun[],
  measures: MethodMeasures | undefined,
): MethodEvidence {
  const byMethod = runsByMethod(run, runs);
  const a = byMethod.get(from);
  const b = byMethod.get(to);
  if (a?.length && b?.length) {
    const text = `under ${to}: ${spread(b)}; under ${from}: ${spread(a)}`;
    return { kind: median(b) <= median(a) * (1 - METHOD_GAIN_SHARE) ? "gain" : "no_gain", text };
  }
  const m = run.queryId ? measures?.get(run.queryId) : undefined;
  return (m && measureSays(m, from, to)) ?? { kind: "unmeasured", text: null };
}
