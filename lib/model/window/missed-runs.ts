// Runs the polls missed, found in pg_wait_sampling's profile (pure). A
// profile delta with a queryid that went to no run (run-waits.ts) is a
// statement no poll of pg_stat_activity saw: it ran between two polls. Its
// samples say how long it ran and what it waited on, to the profile's period;
// the read they rose in says where, and the polls that did not see it narrow
// that to a gap between two of them (placeInSpan).
//
// Where the polls saw the session end that statement (idle, its query_id,
// query_start and state_change: session-statements.ts), the run starts and
// ends there, on the server's clock.
//
// The deltas of one read are grouped by queryid: the pid with the most
// samples is the run's, the others its workers (a parallel query's workers
// carry their leader's queryid). Several sessions running the same statement
// between the same two reads are then one run, of the busiest of them, and
// so are two statements of one session. The profile is read in a tick right
// after its poll: a statement still running at a read was running at that
// poll, and has its run. Groups whose leader ran less than MISSED_RUN_MIN_MS
// (by its samples, or by its span where the polls saw it end) are not runs,
// as a statement shorter than the polls' interval seldom is one: OLTP
// statements would flood the list.
import type { WaitDelta, ProfileRead } from "./wait-profile";

/** The default watched poll interval: a statement shorter than this seldom has a run from the polls either. */
export const MISSED_RUN_MIN_MS = 100;

/** One read's deltas of a query that no run took. */
export interface MissedGroup {
  queryId: string;
  read: ProfileRead;
  deltas: WaitDelta[];
  /** samples by pid */
  byPid: Map<number, number>;
}

/** What a group makes: its leader, its workers, its span on inflight's clock. */
export interface MissedRun {
  queryId: string;
  pid: number;
  workerPids: number[];
  start: number;
  end: number;
  offsetMs: number;
  deltas: WaitDelta[];
}

const sum = (byPid: Map<number, number>, pid: number, n: number) => byPid.set(pid, (byPid.get(pid) ?? 0) + n);

/** The pid with the most samples (the lowest pid of equals): the run's. */
export function leaderOf(byPid: ReadonlyMap<number, number>): number {
  let best = -1;
  let most = -1;
  for (const [pid, n] of byPid) if (n > most || (n === most && pid < best)) [best, most] = [pid, n];
  return best;
}

/**
 * Where in [from, to] a statement of `ms` ran that no poll saw: between two
 * polls (each of `polls` is a moment it was not running), outside the spans
 * `taken` by its session's other statements placed there, in the longest
 * such gap (the one a statement of that length fits in the most ways),
 * centred there.
 */
export function placeInSpan(
  polls: readonly number[],
  from: number,
  to: number,
  ms: number,
  taken: readonly { start: number; end: number }[] = [],
): { start: number; end: number } {
  const marks = [...polls, ...taken.flatMap((t) => [t.start, t.end])];
  const bounds = [from, ...marks.filter((t) => t > from && t < to).sort((a, b) => a - b), to];
  let gap = [from, to];
  let longest = -1;
  for (let i = 1; i < bounds.length; i++) {
    const [a, b] = [bounds[i - 1], bounds[i]];
    if (taken.some((t) => a >= t.start && b <= t.end)) continue;
    if (b - a >= longest) [gap, longest] = [[a, b], b - a];
  }
  const mid = (gap[0] + gap[1]) / 2;
  const end = Math.min(to, Math.max(from, mid - ms / 2) + ms);
  return { start: Math.max(from, end - ms), end };
}

/**
 * The groups of one read's unmatched deltas, by queryid: not inflight's own
 * session, not a delta without a queryid (auxiliary processes, utility
 * statements), not a query `skip` names (another inflight's statements), not
 * a pid's samples of a query whose runs of the span are all other pids'
 * (`seen`: queryid to the pids of its runs): a parallel worker the polls did
 * not see, of a query they did. A pid's samples beyond what its own run of
 * the query could hold (run-waits.ts) are another statement of it.
 */
export function groupUnmatched(
  read: ProfileRead,
  unmatched: readonly WaitDelta[],
  seen: ReadonlyMap<string, ReadonlySet<number>>,
  skip: (queryId: string) => boolean = () => false,
): MissedGroup[] {
  const groups = new Map<string, MissedGroup>();
  for (const d of unmatched) {
    if (d.queryId === null || d.pid === read.ownPid) continue;
    const pids = seen.get(d.queryId);
    if (pids && !pids.has(d.pid)) continue;
    let group = groups.get(d.queryId);
    if (!group) {
      if (skip(d.queryId)) continue;
      group = { queryId: d.queryId, read, deltas: [], byPid: new Map() };
      groups.set(d.queryId, group);
    }
    group.deltas.push(d);
    sum(group.byPid, d.pid, d.n);
  }
  return [...groups.values()];
}

/** Where a group's statement ran, on inflight's clock, where the polls saw its session end it; null where not. */
export type ExactSpan = (group: MissedGroup, pid: number) => { start: number; end: number } | null;

/**
 * The groups of a read worth a run, as runs: where the polls saw the
 * statement end (`exact`), there; the others, the longest first, each in a
 * gap of its own, its length from the leader's samples and its place in the
 * read's span from the polls and its session's other runs (placeInSpan).
 */
export function missedRuns(groups: readonly MissedGroup[], polls: readonly number[], exact: ExactSpan = () => null): MissedRun[] {
  const runs: MissedRun[] = [];
  const placed = groups.map((g) => {
    const pid = leaderOf(g.byPid);
    return { g, pid, samples: g.byPid.get(pid) ?? 0, span: exact(g, pid) };
  });
  const worth = placed.filter(({ g, samples, span }) => (span ? span.end - span.start : samples * g.read.periodMs) >= MISSED_RUN_MIN_MS);
  for (const { g, pid, span } of worth) if (span) runs.push(missedRun(g, pid, span));
  const rest = worth.filter((p) => !p.span).sort((a, b) => b.samples - a.samples);
  for (const { g, pid, samples } of rest) {
    const taken = runs.filter((r) => r.pid === pid);
    runs.push(missedRun(g, pid, placeInSpan(polls, g.read.from, g.read.to, samples * g.read.periodMs, taken)));
  }
  return runs;
}

function missedRun(group: MissedGroup, pid: number, { start, end }: { start: number; end: number }): MissedRun {
  return {
    queryId: group.queryId,
    pid,
    workerPids: [...group.byPid.keys()].filter((p) => p !== pid).sort((a, b) => a - b),
    start,
    end,
    offsetMs: group.read.offsetMs,
    deltas: group.deltas,
  };
}
