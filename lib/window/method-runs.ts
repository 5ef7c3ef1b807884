// The slow runs of each statement with the io_method they ran under (pure):
// what the findings weigh io_method advice against. Kept apart from the runs
// ring, whose 2000 ended runs a busy server's short statements fill in
// seconds; a slow run is rare, and a few of each statement are enough.
import type { QueryRun } from "../schemas/runs";

/** A run of a second or more and the io_method in force when it ended (a run never spans a restart). */
export interface MethodRun {
  queryId: string | null;
  query: string;
  ioMethod: string;
  ms: number;
  endedAt: number;
}

/** Runs shorter than this are not kept (the findings judge runs of a second or more). */
export const METHOD_RUN_MIN_MS = 1000;
/** At most this many runs are kept in all; the oldest go first. */
const MAX_METHOD_RUNS = 500;

export class MethodRuns {
  private list: MethodRun[] = [];

  /** Keeps the runs that just ended, slow enough to be judged, under `ioMethod`. */
  note(ended: readonly QueryRun[], ioMethod: string | undefined): void {
    if (!ioMethod) return;
    for (const r of ended) {
      if (r.endedAt === null || r.endedAt - r.startedAt < METHOD_RUN_MIN_MS) continue;
      this.list.push({ queryId: r.queryId, query: r.query, ioMethod, ms: r.endedAt - r.startedAt, endedAt: r.endedAt });
    }
    if (this.list.length > MAX_METHOD_RUNS) this.list.splice(0, this.list.length - MAX_METHOD_RUNS);
  }

  evictBefore(cutoff: number): void {
    let drop = 0;
    while (drop < this.list.length && this.list[drop].endedAt < cutoff) drop++;
    if (drop) this.list.splice(0, drop);
  }

  get all(): readonly MethodRun[] {
    return this.list;
  }
}
