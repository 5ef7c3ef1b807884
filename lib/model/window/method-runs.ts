// The runs of each statement with the io_method they ran under (pure): what
// the findings weigh io_method advice against. Kept apart from the runs
// ring, whose 2000 ended runs a busy server's short statements fill in
// seconds: here a few of each statement's latest under each io_method, for
// the statements that last long enough to matter.
import type { QueryRun } from "../../schemas/runs";

/** A run and the io_method in force when it ended (a run never spans a restart). */
export interface MethodRun {
  queryId: string | null;
  query: string;
  ioMethod: string;
  ms: number;
  endedAt: number;
}

/** Runs shorter than this are not kept: a scan that a change of io_method could speed up reads for longer. */
export const METHOD_RUN_MIN_MS = 100;
/** The latest this many runs of a statement under each io_method are kept. */
const PER_METHOD = 10;
/** At most this many statements are kept; the one updated longest ago goes first. */
const MAX_STATEMENTS = 200;

const keyOf = (r: Pick<QueryRun, "queryId" | "query">) => (r.queryId ? `id:${r.queryId}` : `text:${r.query}`);

export class MethodRuns {
  /** by statement, in the order they were last updated (a Map keeps insertion order) */
  private byStatement = new Map<string, MethodRun[]>();

  /** Keeps the runs that just ended, long enough to matter, under `ioMethod`. */
  note(ended: readonly QueryRun[], ioMethod: string | undefined): void {
    if (!ioMethod) return;
    for (const r of ended) {
      if (r.endedAt === null || r.endedAt - r.startedAt < METHOD_RUN_MIN_MS) continue;
      const key = keyOf(r);
      const runs = this.byStatement.get(key) ?? [];
      runs.push({ queryId: r.queryId, query: r.query, ioMethod, ms: r.endedAt - r.startedAt, endedAt: r.endedAt });
      // The first kept under this io_method go first.
      let over = runs.filter((x) => x.ioMethod === ioMethod).length - PER_METHOD;
      const kept = over > 0 ? runs.filter((x) => !(x.ioMethod === ioMethod && over-- > 0)) : runs;
      this.byStatement.delete(key);
      this.byStatement.set(key, kept);
    }
    for (const key of this.byStatement.keys()) {
      if (this.byStatement.size <= MAX_STATEMENTS) break;
      this.byStatement.delete(key);
    }
  }

  evictBefore(cutoff: number): void {
    // Called every tick: a statement is looked at only when its oldest run is past the cutoff.
    for (const [key, runs] of this.byStatement) {
      if (runs.every((r) => r.endedAt >= cutoff)) continue;
      const kept = runs.filter((r) => r.endedAt >= cutoff);
      if (kept.length) this.byStatement.set(key, kept);
      else this.byStatement.delete(key);
    }
  }

  /** The runs kept of the statement of `run` (by query id, else by text). */
  of(run: Pick<QueryRun, "queryId" | "query">): readonly MethodRun[] {
    return this.byStatement.get(keyOf(run)) ?? [];
  }

  get all(): readonly MethodRun[] {
    return [...this.byStatement.values()].flat();
  }
}
