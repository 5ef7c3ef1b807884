// pg_stat_statements over the window (pure): deltas of its cumulative
// counters between the oldest snapshot kept and the newest, per queryid.
import type { StatementStat } from "../../schemas/runs";
import type { StatStatementsRow } from "../../schemas/rows";
import { TRACK_IO_TIMING_SQL } from "./advice";

/** Statements shown, slowest (total exec time) first. */
export const TOP_STATEMENTS = 50;

/**
 * Every statement in sql/ carries `/* inflight:<file> *\/` inside its text
 * (not before it: pg_stat_statements drops what precedes the first token),
 * so inflight's own statements, and those of any other inflight watching the
 * same server, can be told from the workload in pg_stat_statements and
 * pg_stat_activity, and each is known by its file's name.
 */
export const OWN_MARKER = /\/\* inflight:([a-z_]+) \*\//;

/** The collector's own statements are not the target's workload. */
export function isOwn(query: string): boolean {
  return OWN_MARKER.test(query);
}

/** The sql/ file an own statement came from ("activity"), or null. */
export function ownStatement(query: string): string | null {
  return OWN_MARKER.exec(query)?.[1] ?? null;
}

/** One of inflight's own statements between two reads: its calls and their server time. */
export interface OwnCallCost {
  name: string;
  calls: number;
  ms: number;
  msPerCall: number;
}

/**
 * What each of the collector's own statements cost per call between two
 * reads of its pg_stat_statements entries. An entry seen for the first time
 * gives nothing: its mean is over the entry's whole life, which may span a
 * restart with other settings (pg_stat_statements keeps its counters across
 * a clean one) or the first, cold calls.
 */
export function ownCallCosts(
  before: ReadonlyMap<string, StatStatementsRow>,
  rows: readonly StatStatementsRow[],
  nameOf: (queryid: string) => string | null,
): OwnCallCost[] {
  const costs: OwnCallCost[] = [];
  for (const row of rows) {
    const last = before.get(row.queryid);
    const name = row.own && last ? nameOf(row.queryid) : null;
    if (!name) continue;
    // This role's share of the entry only: another role running the same file (another inflight,
    // the bench's bare runs) may cost more or less a call.
    const calls = row.own_calls - last!.own_calls;
    const ms = Math.max(0, row.own_exec_time - last!.own_exec_time);
    // A reset (calls went down) or no call since: nothing learned.
    if (calls > 0) costs.push({ name, calls, ms, msPerCall: ms / calls });
  }
  return costs;
}

/**
 * The server time of this collector's own `calls` of a statement, from its
 * pg_stat_statements delta. The delta is this role's (ownCallCosts), but not
 * all ours: it counts every session of this role in this database that runs
 * the same statement: another target of this process naming the same
 * database, another inflight under the same role. Charged the whole delta,
 * each of 100 targets on one database paid for all of them. So: the delta's
 * mean over our calls, never more than the delta.
 */
export function ownSpent(cost: Pick<OwnCallCost, "ms" | "msPerCall">, calls: number): number {
  return Math.min(cost.ms, cost.msPerCall * Math.max(0, calls));
}

/** "1.10" < "1.11": versions compared as numbers, part by part. */
export function versionAtLeast(version: string, min: string): boolean {
  const a = version.split(".").map(Number);
  const b = min.split(".").map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

/**
 * The counters statement for an extension version: 1.11 (PostgreSQL 17)
 * renamed blk_read_time to shared_blk_read_time; before 1.8 (PostgreSQL 13)
 * total_exec_time was total_time, which inflight does not read.
 */
export function countersStatement(version: string): "stat_statements" | "stat_statements_legacy" | null {
  if (versionAtLeast(version, "1.11")) return "stat_statements";
  if (versionAtLeast(version, "1.8")) return "stat_statements_legacy";
  return null;
}

export function statementDeltas(
  oldest: Map<string, StatStatementsRow>,
  latest: Map<string, StatStatementsRow>,
  texts: Map<string, string>,
  readTimeKnown: boolean,
): StatementStat[] {
  const out: StatementStat[] = [];
  for (const [id, cur] of latest) {
    const old = oldest.get(id);
    const calls = cur.calls - (old?.calls ?? 0);
    if (calls <= 0) continue;
    const totalExecTime = cur.total_exec_time - (old?.total_exec_time ?? 0);
    const sharedBlksRead = cur.shared_blks_read - (old?.shared_blks_read ?? 0);
    const timed = cur.read_time - (old?.read_time ?? 0);
    // With track_io_timing on, every read takes some time to issue: blocks
    // read in no time were read with timing off (SET in that session).
    const readTime = readTimeKnown && !(sharedBlksRead > 0 && timed <= 0) ? timed : null;
    out.push({
      queryId: id,
      query: texts.get(id) ?? "",
      calls,
      totalExecTime,
      readTime,
      sharedBlksRead,
      sharedBlksHit: cur.shared_blks_hit - (old?.shared_blks_hit ?? 0),
      readShare: readTime !== null && totalExecTime > 0 ? Math.min(1, readTime / totalExecTime) : null,
    });
  }
  return out.sort((a, b) => b.totalExecTime - a.totalExecTime).slice(0, TOP_STATEMENTS);
}

const TURN_ON = TRACK_IO_TIMING_SQL.replace("\n", " ");

/** Why the figures may be incomplete, and what to do; null when they are not. */
export function statementsNote(serverTiming: boolean, stats: StatementStat[]): string | null {
  if (!serverTiming) return `track_io_timing is off: read time is unknown, not zero. Turn it on: ${TURN_ON}`;
  const untimed = stats.filter((s) => s.readTime === null).length;
  if (untimed === 0) return null;
  return `${untimed} statement${untimed === 1 ? "" : "s"} read blocks with track_io_timing off in their session (SET track_io_timing = off): their read time is unknown, not zero. Keep it on: ${TURN_ON}`;
}
