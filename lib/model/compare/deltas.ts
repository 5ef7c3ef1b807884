// pg_stat_statements between two consecutive reads of one session (pure):
// what each queryid did in between, for the history on disk.
import type { StatStatementsRow } from "../../schemas/rows";

/** One queryid's work between two reads. */
export interface StatementDelta {
  queryid: string;
  calls: number;
  /** ms */
  execMs: number;
  /** sum of the squared execution times, ms² (from mean and stddev) */
  execSq: number;
  /** ms; null when unknown (track_io_timing off) */
  readMs: number | null;
  blksRead: number;
  blksHit: number;
}

/**
 * The deltas of every queryid that ran between `previous` and `current`.
 * An entry whose counters went down was deallocated or reset in between and
 * started again from zero after `previous`: all of it is new. `readTimeKnown`:
 * track_io_timing is on, so read time is a figure (a statement that read
 * blocks in no time read them with timing off in its session: unknown).
 */
export function intervalDeltas(
  previous: ReadonlyMap<string, StatStatementsRow>,
  current: readonly StatStatementsRow[],
  readTimeKnown: boolean,
): StatementDelta[] {
  const out: StatementDelta[] = [];
  for (const cur of current) {
    const before = previous.get(cur.queryid);
    const old = before && before.calls <= cur.calls ? before : undefined;
    const calls = cur.calls - (old?.calls ?? 0);
    if (calls <= 0) continue;
    const blksRead = Math.max(0, cur.shared_blks_read - (old?.shared_blks_read ?? 0));
    const timed = cur.read_time - (old?.read_time ?? 0);
    out.push({
      queryid: cur.queryid,
      calls,
      execMs: Math.max(0, cur.total_exec_time - (old?.total_exec_time ?? 0)),
      execSq: Math.max(0, cur.exec_time_sq - (old?.exec_time_sq ?? 0)),
      readMs: readTimeKnown && !(blksRead > 0 && timed <= 0) ? Math.max(0, timed) : null,
      blksRead,
      blksHit: Math.max(0, cur.shared_blks_hit - (old?.shared_blks_hit ?? 0)),
    });
  }
  return out;
}
