// pg_wait_sampling's samples folded into the query runs (pure). A run's
// wait counts then come from the server's own 10 ms samples rather than
// inflight's polls of pg_stat_activity: ten times the samples, each weighed
// alike. A sample reads asynchronously or synchronously as a poll does: by
// its wait (IO:Aio*, IO:DataFileRead), or by the pg_aios handles the poll
// nearest in time saw in flight for that run, so the verdict weighs every
// sample the same and the handles read between waits still count.
import type { QueryRun } from "../schemas/runs";
import type { WaitSample } from "./wait-history";

export type SampledCounts = Pick<QueryRun, "samples" | "ioWaitSamples" | "aioWaitSamples" | "readWaitSamples" | "otherIoWaitSamples" | "cpuSamples" | "asyncSamples" | "syncSamples">;

/** What a poll that read pg_aios saw of a run's handles, on inflight's clock. */
export interface HandlesSeen {
  t: number;
  async: boolean;
  sync: boolean;
}

/** What of a run the fold reads and writes. */
export interface WaitedRun {
  pid: number;
  workerPids: readonly number[];
  /** the server's query_start (ms) */
  startedAt: number;
  endedAt: number | null;
  queryId: string | null;
  sampled: SampledCounts | null;
  handlesSeen: HandlesSeen[];
}

/** Handles seen this long ago are of no sample still to come (the history is read about once a second). */
const HANDLES_KEPT_MS = 5000;

export function noteHandles(run: WaitedRun, t: number, inFlight: number, syncInFlight: number): void {
  run.handlesSeen.push({ t, async: inFlight > 0, sync: syncInFlight > 0 });
  while (run.handlesSeen.length > 1 && run.handlesSeen[0].t < t - HANDLES_KEPT_MS) run.handlesSeen.shift();
}

export const noCounts = (): SampledCounts => ({ samples: 0, ioWaitSamples: 0, aioWaitSamples: 0, readWaitSamples: 0, otherIoWaitSamples: 0, cpuSamples: 0, asyncSamples: 0, syncSamples: 0 });

/** The run a sample is of: its pid's (or a parallel worker's leader's) latest run begun by then, not ended before it, of the same query where both say which. */
function runOf<R extends WaitedRun>(runs: readonly R[], s: WaitSample, slackMs: number): R | undefined {
  let best: R | undefined;
  for (const run of runs) {
    if (run.pid !== s.pid && !run.workerPids.includes(s.pid)) continue;
    if (run.startedAt > s.serverMs + 1 || (run.endedAt !== null && s.t > run.endedAt + slackMs)) continue;
    if (s.queryId && run.queryId && s.queryId !== run.queryId) continue;
    if (!best || run.startedAt > best.startedAt) best = run;
  }
  return best;
}

/** The handles of the poll nearest `t`, within `slackMs`; null when none was that near. */
function nearestHandles(seen: readonly HandlesSeen[], t: number, slackMs: number): HandlesSeen | null {
  let best: HandlesSeen | null = null;
  for (const h of seen) if (Math.abs(h.t - t) <= slackMs && (!best || Math.abs(h.t - t) < Math.abs(best.t - t))) best = h;
  return best;
}

/**
 * Adds each sample to its run's counts; returns the runs that took one.
 * `slackMs`: how far apart a sample and a poll may be and still be one
 * moment (the polling interval): the end of a run is known to a poll, the
 * handles at a poll.
 */
export function foldWaits<R extends WaitedRun>(runs: readonly R[], samples: readonly WaitSample[], slackMs: number): Set<R> {
  const changed = new Set<R>();
  for (const s of samples) {
    const run = runOf(runs, s, slackMs);
    if (!run) continue;
    const c = (run.sampled ??= noCounts());
    const handles = nearestHandles(run.handlesSeen, s.t, slackMs);
    c.samples++;
    if (s.state === "aio") c.aioWaitSamples++;
    else if (s.state === "read") c.readWaitSamples++;
    else if (s.state === "io") c.otherIoWaitSamples++;
    else if (s.state === "cpu") c.cpuSamples++;
    if (s.state === "aio" || s.state === "read" || s.state === "io") c.ioWaitSamples++;
    if (s.state === "aio" || handles?.async) c.asyncSamples++;
    if (s.state === "read" || handles?.sync) c.syncSamples++;
    changed.add(run);
  }
  return changed;
}

/** A run's wait counts: pg_wait_sampling's once it has taken one of its samples, else its polls'. */
export function countsOf(run: SampledCounts & Pick<WaitedRun, "sampled">): SampledCounts {
  const c = run.sampled && run.sampled.samples > 0 ? run.sampled : run;
  return { samples: c.samples, ioWaitSamples: c.ioWaitSamples, aioWaitSamples: c.aioWaitSamples, readWaitSamples: c.readWaitSamples, otherIoWaitSamples: c.otherIoWaitSamples, cpuSamples: c.cpuSamples, asyncSamples: c.asyncSamples, syncSamples: c.syncSamples };
}
