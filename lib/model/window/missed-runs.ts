// Runs the polls missed, found in pg_wait_sampling's profile (pure). A
// profile delta with a queryid that went to no run (run-waits.ts) is a
// statement no poll of pg_stat_activity saw: it ran between two polls. Its
// samples say how long it ran and what it waited on, to the profile's period;
// the read they rose in says where, give or take the span between two reads.
//
// The deltas of one read are grouped by queryid: the pid with the most
// samples is the run's, the others its workers (a parallel query's workers
// carry their leader's queryid). Several sessions running the same statement
// between the same two reads are then one run, of the busiest of them. A
// statement still running at a read has samples in the next one too: a group
// is held for one read, and one that goes on in the next read is the same
// run. Groups whose leader ran less than MISSED_RUN_MIN_MS are not runs, as
// a statement shorter than the polls' interval seldom is one: OLTP
// statements would flood the list.
import type { WaitDelta, ProfileRead } from "./wait-profile";

/** The default watched poll interval: a statement shorter than this seldom has a run from the polls either. */
export const MISSED_RUN_MIN_MS = 100;

/** One read's part of a missed statement. */
export interface MissedPart {
  read: ProfileRead;
  deltas: WaitDelta[];
  /** where in the read's span it ran, on inflight's clock, were this its only part (placeInSpan) */
  place: { start: number; end: number };
}

export interface MissedGroup {
  queryId: string;
  /** samples by pid over all parts */
  byPid: Map<number, number>;
  parts: MissedPart[];
}

/** What a group makes: its leader, its workers, its span on inflight's clock. */
export interface MissedRun {
  queryId: string;
  pid: number;
  workerPids: number[];
  start: number;
  end: number;
  durationMs: number;
  offsetMs: number;
  deltas: WaitDelta[];
}

const sum = (byPid: Map<number, number>, pid: number, n: number) => byPid.set(pid, (byPid.get(pid) ?? 0) + n);

/** The pid with the most samples (the lowest pid of equals). */
function leaderOf(byPid: ReadonlyMap<number, number>): number {
  let best = -1;
  let most = -1;
  for (const [pid, n] of byPid) if (n > most || (n === most && pid < best)) [best, most] = [pid, n];
  return best;
}

/**
 * Where in [from, to] a statement of `ms` ran that no poll saw: between two
 * polls (each of `polls` is a moment it was not running), in the longest
 * such gap (the one a statement of that length fits in the most ways),
 * centred there.
 */
export function placeInSpan(polls: readonly number[], from: number, to: number, ms: number): { start: number; end: number } {
  const bounds = [from, ...polls.filter((t) => t > from && t < to).sort((a, b) => a - b), to];
  let gap = [from, to];
  let longest = -1;
  for (let i = 1; i < bounds.length; i++) {
    const len = bounds[i] - bounds[i - 1];
    if (len >= longest) [gap, longest] = [[bounds[i - 1], bounds[i]], len];
  }
  const mid = (gap[0] + gap[1]) / 2;
  const end = Math.min(to, Math.max(from, mid - ms / 2) + ms);
  return { start: Math.max(from, end - ms), end };
}

/**
 * The groups of one read's unmatched deltas, by queryid: not inflight's own
 * session, not a delta without a queryid (auxiliary processes, utility
 * statements), not a queryid a run of the span has (`seen`: a parallel
 * worker the polls did not see, of a query they did).
 */
export function groupUnmatched(read: ProfileRead, unmatched: readonly WaitDelta[], seen: ReadonlySet<string>): Map<string, WaitDelta[]> {
  const groups = new Map<string, WaitDelta[]>();
  for (const d of unmatched) {
    if (d.queryId === null || d.pid === read.ownPid || seen.has(d.queryId)) continue;
    const list = groups.get(d.queryId);
    if (list) list.push(d);
    else groups.set(d.queryId, [d]);
  }
  return groups;
}

/** A group as a run: the leader's samples give its length; one part is placed in its span, several run on from the first read's end. */
export function missedRun(group: MissedGroup): MissedRun {
  const pid = leaderOf(group.byPid);
  const first = group.parts[0];
  const last = group.parts.at(-1)!;
  const periodMs = last.read.periodMs;
  const durationMs = (group.byPid.get(pid) ?? 0) * periodMs;
  const leaderIn = (part: MissedPart) => part.deltas.reduce((n, d) => n + (d.pid === pid ? d.n : 0), 0) * periodMs;
  let { start, end } = first.place;
  if (group.parts.length > 1) {
    // Running at the first read: it began its part's length before that read and ran on.
    start = Math.max(first.read.from, first.read.to - leaderIn(first));
    end = Math.min(last.read.to, start + durationMs);
  }
  return {
    queryId: group.queryId,
    pid,
    workerPids: [...group.byPid.keys()].filter((p) => p !== pid).sort((a, b) => a - b),
    start,
    end,
    durationMs,
    offsetMs: first.read.offsetMs,
    deltas: group.parts.flatMap((p) => p.deltas),
  };
}

/** The leader's samples are worth a run. */
export const worthARun = (group: MissedGroup): boolean =>
  (group.byPid.get(leaderOf(group.byPid)) ?? 0) * group.parts[0].read.periodMs >= MISSED_RUN_MIN_MS;

/**
 * The groups held from one read to the next. `take` adds a read's groups
 * and returns those held from the read before that did not go on in this
 * one (ended: a run to make, or not). Held groups outlive a lost
 * connection: the first read on the next one ends them.
 */
export class MissedGroups {
  private held = new Map<string, MissedGroup>();

  take(read: ProfileRead, groups: ReadonlyMap<string, WaitDelta[]>, polls: readonly number[]): MissedGroup[] {
    const ended: MissedGroup[] = [];
    const next = new Map<string, MissedGroup>();
    for (const [queryId, deltas] of groups) {
      const byPid = new Map<number, number>();
      for (const d of deltas) sum(byPid, d.pid, d.n);
      const ms = (byPid.get(leaderOf(byPid)) ?? 0) * read.periodMs;
      const part: MissedPart = { read, deltas, place: placeInSpan(polls, read.from, read.to, ms) };
      const held = this.held.get(queryId);
      // The same statement when the reads are consecutive and a pid is common to both.
      if (held && held.parts.at(-1)!.read.to === read.from && [...byPid.keys()].some((p) => held.byPid.has(p))) {
        for (const [pid, n] of byPid) sum(held.byPid, pid, n);
        held.parts.push(part);
        next.set(queryId, held);
        this.held.delete(queryId);
      } else next.set(queryId, { queryId, byPid, parts: [part] });
    }
    ended.push(...this.held.values());
    this.held = next;
    return ended;
  }
}
