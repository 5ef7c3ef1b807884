// Which of the bench's own scans (its list, on its clock: scans.ts) a
// collector has a run of. A run is of a scan when it is of the scan's
// backend and table, and near it in time: a run found in pg_wait_sampling's
// profile (QueryRun.seenBy) is placed only to within the profile read it rose
// in, so within `slackMs` of the scan; each run is of one scan at most, and
// each scan takes the nearest free run. Counted this way, a collector cannot
// claim a scan it never saw by the runs it has: the scans are the bench's.
import type { ScanRecord } from "./scans";

export interface TimedRun {
  pid: number;
  query: string;
  startedAt: number;
  endedAt: number | null;
  lastSeen: number;
}

/** The table is named in the run's text, not as a prefix of another name; a text not known yet (a placeholder) names none and is taken as any. */
function ofTable(run: TimedRun, table: string): boolean {
  const bare = table.replace(/^public\./, "");
  if (!/\bFROM\b/i.test(run.query)) return true;
  return new RegExp(`(^|[^\\w.])(public\\.)?${bare}(?![\\w])`).test(run.query);
}

/** Each scan's run (by the scan's n), where it has one. */
export function runsOfScans<R extends TimedRun>(scans: readonly ScanRecord[], runs: readonly R[], slackMs = 1000): Map<number, R> {
  const pairs: { scan: ScanRecord; run: R; cost: number }[] = [];
  for (const scan of scans)
    for (const run of runs) {
      if (run.pid !== scan.pid || !ofTable(run, scan.table)) continue;
      const end = run.endedAt ?? run.lastSeen;
      const apart = Math.max(0, run.startedAt - scan.end, scan.start - end);
      if (apart <= slackMs) pairs.push({ scan, run, cost: Math.abs((run.startedAt + end) / 2 - (scan.start + scan.end) / 2) });
    }
  pairs.sort((a, b) => a.cost - b.cost);
  const out = new Map<number, R>();
  const taken = new Set<R>();
  for (const p of pairs) {
    if (out.has(p.scan.n) || taken.has(p.run)) continue;
    out.set(p.scan.n, p.run);
    taken.add(p.run);
  }
  return out;
}
