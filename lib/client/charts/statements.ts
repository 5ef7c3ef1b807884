// pg_stat_statements over the window: ranked, with the read share as bars.
import type { StatementStat } from "@/lib/schemas/runs";

export interface StatementRow {
  stat: StatementStat;
  /** exec time as a share of the slowest statement's, for the bar length */
  execScale: number;
  /** read time as a share of this statement's exec time (0..1), null when unknown */
  readOfExec: number | null;
  hitRatio: number | null;
}

/** Most total exec time first; at most `limit` rows. */
export function rankStatements(stats: readonly StatementStat[], limit = 20): StatementRow[] {
  const ranked = [...stats].sort((a, b) => b.totalExecTime - a.totalExecTime || a.queryId.localeCompare(b.queryId)).slice(0, limit);
  const top = ranked[0]?.totalExecTime ?? 0;
  return ranked.map((stat) => {
    const blocks = stat.sharedBlksRead + stat.sharedBlksHit;
    return {
      stat,
      execScale: top > 0 ? stat.totalExecTime / top : 0,
      readOfExec: stat.readTime === null ? null : stat.totalExecTime > 0 ? Math.min(1, stat.readTime / stat.totalExecTime) : 0,
      hitRatio: blocks > 0 ? stat.sharedBlksHit / blocks : null,
    };
  });
}

/** Whether any read time is unknown (track_io_timing off). */
export const readTimeUnknown = (stats: readonly StatementStat[]) => stats.some((s) => s.readTime === null);
