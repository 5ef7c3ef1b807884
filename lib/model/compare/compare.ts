// Before and after (pure): the same statements on both sides of a moment
// (a restart), each side summed from the per-minute history, and a plain
// verdict per statement. The thresholds are named here, once.
import type { CompareRow, CompareSide, CompareVerdict } from "../../schemas/compare";
import { isHousekeeping } from "../window/findings/server";
import type { StatementDelta } from "./deltas";

/** Fewer calls than this on either side: too few to tell (the write-ups ran 5 per setting). */
export const MIN_CALLS = 5;
/** A difference of means counts when it is larger than this many standard errors of it (about 95%). */
export const SPREAD_Z = 2;
/** ...and at least this share of the before mean: smaller differences are not worth a verdict. */
export const MIN_CHANGE = 0.05;

/** One side's sums for one queryid, as the history keeps them: the minutes' deltas added up
 * (readMs null when unknown on any minute of the side). */
export type SideSums = Omit<StatementDelta, "queryid">;

/** Mean, standard deviation (of single calls), read share and blocks read per call. */
export function sideStats(s: SideSums): CompareSide {
  const mean = s.calls > 0 ? s.execMs / s.calls : 0;
  // Sample variance from the sums; rounding can take it a hair below zero.
  const variance = s.calls > 1 ? Math.max(0, (s.execSq - s.calls * mean * mean) / (s.calls - 1)) : null;
  return {
    calls: s.calls,
    meanMs: mean,
    sdMs: variance === null ? null : Math.sqrt(variance),
    readShare: s.readMs !== null && s.execMs > 0 ? Math.min(1, s.readMs / s.execMs) : null,
    blocksReadPerCall: s.calls > 0 ? s.blksRead / s.calls : 0,
  };
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** faster / slower / no measurable difference / too few calls, with its reason in words. */
export function verdict(before: CompareSide, after: CompareSide): CompareVerdict {
  const calls = `${before.calls} vs ${after.calls} calls`;
  if (before.calls < MIN_CALLS || after.calls < MIN_CALLS || before.sdMs === null || after.sdMs === null) {
    return { kind: "too_few", change: null, text: `too few calls to tell (${calls}; ${MIN_CALLS} a side needed)` };
  }
  const change = before.meanMs > 0 ? (after.meanMs - before.meanMs) / before.meanMs : 0;
  const standardError = Math.sqrt(before.sdMs ** 2 / before.calls + after.sdMs ** 2 / after.calls);
  const outside = Math.abs(after.meanMs - before.meanMs) > SPREAD_Z * standardError;
  if (!outside) return { kind: "same", change, text: "no measurable difference (within the spread)" };
  if (Math.abs(change) < MIN_CHANGE) return { kind: "same", change, text: `no measurable difference (under ${pct(MIN_CHANGE)})` };
  const kind = change < 0 ? "faster" : "slower";
  return { kind, change, text: `${kind} by ${pct(Math.abs(change))} (${calls}; outside the spread)` };
}

/**
 * A monitoring poll: a statement over the server's own statistics and
 * catalog views (another tool's, or a script's wait loop), whatever its
 * speed, says nothing of the workload's.
 */
export function isPoller(query: string): boolean {
  return /\b(pg_stat_\w+|pg_statio_\w+|pg_aios|pg_get_aios|pg_settings|pg_locks|pg_control_\w+|pg_postmaster_start_time|pg_is_in_recovery|pg_current_wal_lsn|pg_last_wal_\w+|pg_file_settings|pg_conf_load_time)\b/i.test(
    query,
  );
}

/** Transaction control, SET and the like, and monitoring polls: folded at the bottom of a comparison. */
export const isHousekeepingRow = (query: string) => isHousekeeping(query) || isPoller(query);

/**
 * Every queryid seen on both sides, the most time at stake first (calls x
 * mean, the larger side: the slow statement a restart was made for leads,
 * whatever its verdict); housekeeping and polls at the bottom.
 */
export function compareSides(
  before: ReadonlyMap<string, SideSums>,
  after: ReadonlyMap<string, SideSums>,
  textOf: (queryid: string) => string,
): CompareRow[] {
  const rows: CompareRow[] = [];
  for (const [queryId, b] of before) {
    const a = after.get(queryId);
    if (!a || b.calls <= 0 || a.calls <= 0) continue;
    const sb = sideStats(b);
    const sa = sideStats(a);
    const query = textOf(queryId);
    rows.push({
      queryId,
      query,
      before: sb,
      after: sa,
      verdict: verdict(sb, sa),
      stakeMs: Math.max(b.execMs, a.execMs),
      housekeeping: isHousekeepingRow(query),
    });
  }
  return rows.sort((x, y) => Number(x.housekeeping) - Number(y.housekeeping) || y.stakeMs - x.stakeMs);
}

/** How many rows got each verdict (housekeeping and polls not counted: their verdicts are noise). */
export function verdictCounts(rows: readonly CompareRow[]): Record<CompareVerdict["kind"], number> {
  const out = { slower: 0, faster: 0, same: 0, too_few: 0 };
  for (const r of rows) if (!r.housekeeping) out[r.verdict.kind]++;
  return out;
}
