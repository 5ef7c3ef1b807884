// pg_stat_statements over the window: ranked, with the read share as bars;
// transaction control and SET housekeeping hidden (and counted); a
// parallel statement's read time, summed over its processes, given a share
// that means something.
import type { QueryRun, StatementStat } from "@/lib/schemas/runs";
import { isHousekeeping } from "@/lib/model/window/findings/server";
import { byCodePoint, formatShare } from "@/lib/format";

export interface ReadShare {
  /** "22%", "≈ 35% a process", "above exec time", "unknown" */
  text: string;
  title: string;
  /** the bar's orange part, 0..1; null when unknown */
  bar: number | null;
  /** read time is summed over several processes */
  summed: boolean;
}

export interface StatementRow {
  stat: StatementStat;
  /** exec time as a share of the slowest statement's, for the bar length */
  execScale: number;
  /** read time as a share of this statement's exec time (0..1, per process when parallel), null when unknown */
  readOfExec: number | null;
  share: ReadShare;
  hitRatio: number | null;
}

export interface StatementTable {
  rows: StatementRow[];
  /** transaction control and SET statements left out */
  hidden: number;
}

/** Processes a statement ran in, from its runs in the window (leader + parallel workers); null when none was seen. */
export function processesOf(queryId: string, runs: readonly QueryRun[]): number | null {
  let n: number | null = null;
  for (const r of runs) if (r.queryId === queryId) n = Math.max(n ?? 0, 1 + r.workerPids.length);
  return n;
}

/**
 * pg_stat_statements sums read time over a parallel statement's processes,
 * while exec time is the leader's wall clock: read time / (exec time x
 * processes) is the share a process spent reading.
 */
export function readShare(stat: StatementStat, processes: number | null): ReadShare {
  if (stat.readTime === null)
    return { text: "unknown", title: "track_io_timing was off: read time is unknown, not zero", bar: null, summed: false };
  if (stat.totalExecTime <= 0) return { text: "–", title: "no execution time", bar: 0, summed: false };
  const raw = stat.readTime / stat.totalExecTime;
  if (processes !== null && processes > 1) {
    const each = raw / processes;
    return {
      text: `≈ ${formatShare(each)} a process`,
      title: `read time is summed over its ${processes} processes (leader + ${processes - 1} parallel workers seen in its runs): ${formatShare(raw)} of exec time in all, about ${formatShare(each)} of each process's time`,
      bar: Math.min(1, each),
      summed: true,
    };
  }
  if (raw > 1) {
    return {
      text: "above exec time",
      title:
        "read time exceeds exec time: it is summed over the statement's parallel processes, whose number was not seen in the window; no share per process",
      bar: null,
      summed: true,
    };
  }
  return { text: formatShare(raw), title: "read time / exec time over its calls in the window (exact)", bar: raw, summed: false };
}

/** Most total exec time first; at most `limit` rows; housekeeping out. */
export function statementTable(stats: readonly StatementStat[], runs: readonly QueryRun[] = [], limit = 20): StatementTable {
  const kept = stats.filter((s) => !isHousekeeping(s.query));
  const ranked = [...kept].sort((a, b) => b.totalExecTime - a.totalExecTime || byCodePoint(a.queryId, b.queryId)).slice(0, limit);
  const top = ranked[0]?.totalExecTime ?? 0;
  const rows = ranked.map((stat) => {
    const blocks = stat.sharedBlksRead + stat.sharedBlksHit;
    const share = readShare(stat, processesOf(stat.queryId, runs));
    return {
      stat,
      execScale: top > 0 ? stat.totalExecTime / top : 0,
      readOfExec: share.bar,
      share,
      hitRatio: blocks > 0 ? stat.sharedBlksHit / blocks : null,
    };
  });
  return { rows, hidden: stats.length - kept.length };
}

/** Whether any read time is unknown (track_io_timing off). */
export const readTimeUnknown = (stats: readonly StatementStat[]) => stats.some((s) => s.readTime === null);
