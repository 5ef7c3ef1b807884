// Which of the bench's own scans (its list, on its clock: scans.ts) a
// collector has a run of. A run is of a scan when it is of the scan's
// backend and table, and near it in time: a run found in pg_wait_sampling's
// profile (QueryRun.seenBy) is placed only to within the profile read it rose
// in, so within `slackMs` of the scan; each run is of one scan at most.
// Counted this way, a collector cannot claim a scan it never saw by the runs
// it has: the scans are the bench's.
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

/**
 * Each scan's run (by the scan's n), where it has one: as many scans as can
 * each have a run of their own (a maximum matching, by augmenting paths),
 * each trying its nearest runs first. Taking the nearest pair first instead
 * can leave a scan without the one run it could have: a run placed late in
 * its read is nearer the next scan of the same table, which has a run of its
 * own further on.
 */
export function runsOfScans<R extends TimedRun>(scans: readonly ScanRecord[], runs: readonly R[], slackMs = 1000): Map<number, R> {
  const candidates = new Map<number, R[]>();
  for (const scan of scans) {
    const near: { run: R; cost: number }[] = [];
    for (const run of runs) {
      if (run.pid !== scan.pid || !ofTable(run, scan.table)) continue;
      const end = run.endedAt ?? run.lastSeen;
      const apart = Math.max(0, run.startedAt - scan.end, scan.start - end);
      if (apart <= slackMs) near.push({ run, cost: Math.abs((run.startedAt + end) / 2 - (scan.start + scan.end) / 2) });
    }
    candidates.set(
      scan.n,
      near.sort((a, b) => a.cost - b.cost).map((c) => c.run),
    );
  }
  const scanOf = new Map<R, number>();
  /** Finds `n` a run, moving the scans that hold runs it could have to others where they can. */
  const assign = (n: number, visited: Set<R>): boolean => {
    for (const run of candidates.get(n) ?? []) {
      if (visited.has(run)) continue;
      visited.add(run);
      const holder = scanOf.get(run);
      if (holder === undefined || assign(holder, visited)) {
        scanOf.set(run, n);
        return true;
      }
    }
    return false;
  };
  for (const scan of scans) assign(scan.n, new Set());
  const out = new Map<number, R>();
  for (const [run, n] of scanOf) out.set(n, run);
  return out;
}
