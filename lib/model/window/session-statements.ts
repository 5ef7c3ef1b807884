// The statements the polls saw end, in the sessions whose statements the
// polls miss (pure). pg_stat_activity keeps an idle session's last
// statement: its query_id, its query_start, and its state_change, when it
// ended. A session with samples of no run in pg_wait_sampling's profile
// (missed-runs.ts) is watched: the polls ask for its row while it idles
// (activity.sql's $2), and each statement they see it end is kept a while.
// A run the polls missed then starts and ends where its statement did, on
// the server's own clock, rather than where it fits between the polls.
import type { RunBackend } from "./derive";

/** A statement a poll saw ended, on the server's clock (ms). */
export interface EndedStatement {
  queryId: string;
  startMs: number;
  endMs: number;
}

/** A session is watched this long after its last samples in the profile, once it has had samples of no run. */
export const WATCH_MS = 10_000;
/** At most this many sessions are watched, the latest missed: each idle one adds a row to every poll. */
export const MAX_WATCHED = 32;
/** Statements kept a session: a read of the profile spans about a second. */
const KEPT = 8;

export class SessionStatements {
  /** pid to when its samples last went to no run, oldest first */
  private readonly watched = new Map<number, number>();
  private readonly ended = new Map<number, EndedStatement[]>();

  /** `pid` had samples of no run in a read at `t`. */
  watch(pid: number, t: number): void {
    this.watched.delete(pid);
    this.watched.set(pid, t);
    for (const [oldest] of this.watched) {
      if (this.watched.size <= MAX_WATCHED) break;
      this.forget(oldest);
    }
  }

  /**
   * `pids` had samples in a read at `t`: those watched stay watched while
   * they run statements, though the polls saw every one for a while (a
   * session's next statement the polls miss is then placed too).
   */
  stillRunning(pids: Iterable<number>, t: number): void {
    for (const pid of pids) if (this.watched.has(pid)) this.watch(pid, t);
  }

  /** The sessions watched at `t`, for the polls to ask about while they idle; those not missed for WATCH_MS are let go. */
  pids(t: number): number[] {
    for (const [pid, at] of this.watched) if (at < t - WATCH_MS) this.forget(pid);
    return [...this.watched.keys()];
  }

  /** A poll's backends (derive.ts runBackends): a watched session gone idle has ended its last statement. */
  note(backends: ReadonlyMap<number, RunBackend>): void {
    for (const [pid, b] of backends) {
      if (b.idleSinceMs === null || b.queryId === null || !this.watched.has(pid)) continue;
      const list = this.ended.get(pid) ?? [];
      if (list.some((s) => s.startMs === b.queryStartMs)) continue;
      list.push({ queryId: b.queryId, startMs: b.queryStartMs, endMs: b.idleSinceMs });
      if (list.length > KEPT) list.shift();
      this.ended.set(pid, list);
    }
  }

  /**
   * The statement of `queryId` the session ran within [fromMs, toMs] (the
   * server's clock), when the polls saw it end and it is the only one: two
   * statements of one query in one read are one group of samples, and which
   * samples are whose is not known. Statements `known` (a run the polls saw)
   * are not it.
   */
  within(pid: number, queryId: string, fromMs: number, toMs: number, known: (s: EndedStatement) => boolean): EndedStatement | null {
    const hits = (this.ended.get(pid) ?? []).filter((s) => s.queryId === queryId && s.endMs > fromMs && s.startMs < toMs && !known(s));
    return hits.length === 1 ? hits[0] : null;
  }

  private forget(pid: number): void {
    this.watched.delete(pid);
    this.ended.delete(pid);
  }
}
