// A run the polls missed (missed-runs.ts) as the run store keeps it: ended,
// its wait counts from its profile samples, as a polled run's are once the
// profile reaches it (run-waits.ts), so its verdict comes out the same way.
import { runId } from "./derive";
import type { MissedRun } from "./missed-runs";
import { blankRun, type RunAccum } from "./run-accum";
import { addSamples, countsOf, noCounts } from "./run-waits";
import { verdictOf } from "./verdict";

/** What the run store needs to make them. */
export interface MissedContext {
  /** when the polls were taken, on inflight's clock: moments no missed statement was running */
  polls: readonly number[];
  /** a queryid's text, where pg_stat_statements has it; null where not (yet) */
  textOf: (queryId: string) => string | null;
}

/** A missed run's text until pg_stat_statements has the statement's. */
export const missedText = (queryId: string) => `(queryid ${queryId}: its text when pg_stat_statements has it)`;

/**
 * No poll saw it, so no read of pg_aios either: its samples on CPU count as
 * async or sync in `handles`, the shares the polls saw in flight in the last
 * run of the same query (same statement, same reads: run-store's handlesOf);
 * without one, only its waits (IO:Aio*, IO:DataFileRead) say.
 */
export function missedAccum(m: MissedRun, text: string | null, handles = { async: 0, sync: 0 }): RunAccum {
  const startedAt = m.start - m.offsetMs;
  const run: RunAccum = {
    ...blankRun(runId(m.pid, startedAt), m.pid, startedAt),
    workerPids: m.workerPids,
    query: text ?? missedText(m.queryId),
    queryId: m.queryId,
    firstSeen: m.start,
    lastSeen: m.end,
    // on the server's clock as its start, as a polled run's end from its backend's state_change: its elapsed time is its samples'
    endedAt: m.end - m.offsetMs,
    seenBy: "pg_wait_sampling",
    sampled: noCounts(),
  };
  for (const d of m.deltas) addSamples(run.sampled!, d, d.n, handles);
  run.verdict = verdictOf(countsOf(run));
  return run;
}
