// pg_wait_sampling's profile deltas folded into the query runs (pure). A
// run's wait counts then come from the server's own 10 ms samples rather
// than inflight's polls of pg_stat_activity: ten times the samples, each
// weighed alike. A delta (one pid's samples in one wait between two reads)
// goes to the runs of that pid, or of the leader whose parallel worker it
// is, of the same query where both say which, that overlap the span it rose
// in, shared by how long each overlapped. Its samples read asynchronously or
// synchronously as a poll's do: by their wait (IO:Aio*, IO:DataFileRead), or
// in the share of the span's polls that saw the run's pg_aios handles in
// flight, so the verdict weighs every sample the same.
import type { QueryRun } from "../../schemas/runs";
import type { ProfileRead, WaitDelta } from "./wait-profile";

export type SampledCounts = Pick<
  QueryRun,
  "samples" | "ioWaitSamples" | "aioWaitSamples" | "readWaitSamples" | "otherIoWaitSamples" | "cpuSamples" | "asyncSamples" | "syncSamples"
>;

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

/** Handles seen this long ago are of no delta still to come (the profile is read about once a second). */
const HANDLES_KEPT_MS = 5000;

export function noteHandles(run: WaitedRun, t: number, inFlight: number, syncInFlight: number): void {
  run.handlesSeen.push({ t, async: inFlight > 0, sync: syncInFlight > 0 });
  while (run.handlesSeen.length > 1 && run.handlesSeen[0].t < t - HANDLES_KEPT_MS) run.handlesSeen.shift();
}

export const noCounts = (): SampledCounts => ({
  samples: 0,
  ioWaitSamples: 0,
  aioWaitSamples: 0,
  readWaitSamples: 0,
  otherIoWaitSamples: 0,
  cpuSamples: 0,
  asyncSamples: 0,
  syncSamples: 0,
});

/** The runs a delta is of, each with how long (ms) it overlapped the span: its pid's (or a parallel worker's leader's), of the same query where both say which. */
function runsOf<R extends WaitedRun>(runs: readonly R[], d: WaitDelta, read: ProfileRead, slackMs: number): { run: R; ms: number }[] {
  const out: { run: R; ms: number }[] = [];
  for (const run of runs) {
    if (run.pid !== d.pid && !run.workerPids.includes(d.pid)) continue;
    if (d.queryId && run.queryId && d.queryId !== run.queryId) continue;
    const start = run.startedAt + read.offsetMs;
    const end = run.endedAt ?? read.to;
    if (start > read.to || end < read.from - slackMs) continue;
    out.push({ run, ms: Math.max(1, Math.min(read.to, end) - Math.max(read.from, start)) });
  }
  return out;
}

/** The share of `polls` that saw async, and sync, handles in flight. */
export function handleShares(polls: readonly HandlesSeen[]): { async: number; sync: number } {
  if (!polls.length) return { async: 0, sync: 0 };
  return { async: polls.filter((h) => h.async).length / polls.length, sync: polls.filter((h) => h.sync).length / polls.length };
}

/** ...of the polls within the span (and `slackMs` before it). */
const spanShares = (seen: readonly HandlesSeen[], read: ProfileRead, slackMs: number) =>
  handleShares(seen.filter((h) => h.t >= read.from - slackMs && h.t <= read.to));

/** Adds `n` of a delta's samples to counts: by its wait, and (on CPU or another wait) as async or sync in the `handles` shares. */
export function addSamples(c: SampledCounts, d: Pick<WaitDelta, "state">, n: number, handles: { async: number; sync: number }): void {
  c.samples += n;
  if (d.state === "aio") c.aioWaitSamples += n;
  else if (d.state === "read") c.readWaitSamples += n;
  else if (d.state === "io") c.otherIoWaitSamples += n;
  else if (d.state === "cpu") c.cpuSamples += n;
  if (d.state === "aio" || d.state === "read" || d.state === "io") c.ioWaitSamples += n;
  c.asyncSamples += d.state === "aio" ? n : n * handles.async;
  c.syncSamples += d.state === "read" ? n : n * handles.sync;
}

/** A pid's samples of one query may exceed what its runs could hold by this many before the rest is another
 * statement's: the extension's worker wakes a little late or early. Kept small: a run of the polls takes no more
 * than its length's worth of another statement's samples, and a few of its own left over are far from a run. */
const ROOM_SAMPLES = 1;

/**
 * Adds each delta to its runs' counts; returns the runs that took one, and
 * what went to no run (a statement no poll saw: missed-runs.ts): the deltas
 * of no run, and the samples of a pid and query beyond what its runs could
 * hold in the time they overlapped the span (another statement of the same
 * query, between two polls), shared out over its waits.
 * `slackMs`: how far apart a poll and the span may be and still be one
 * moment (the polling interval): a run's end is known to a poll, handles at
 * a poll.
 */
export function foldWaits<R extends WaitedRun>(
  runs: readonly R[],
  read: ProfileRead,
  slackMs: number,
): { changed: Set<R>; unmatched: WaitDelta[] } {
  const changed = new Set<R>();
  const unmatched: WaitDelta[] = [];
  const samples = new Map<string, number>();
  for (const d of read.deltas) samples.set(`${d.pid}|${d.queryId}`, (samples.get(`${d.pid}|${d.queryId}`) ?? 0) + d.n);
  for (const d of read.deltas) {
    const mine = runsOf(runs, d, read, slackMs);
    const total = mine.reduce((n, m) => n + m.ms, 0);
    const room = mine.length ? Math.max(0, total) / read.periodMs + ROOM_SAMPLES : 0;
    const kept = Math.min(1, room / samples.get(`${d.pid}|${d.queryId}`)!);
    if (kept < 1) unmatched.push({ ...d, n: d.n * (1 - kept) });
    for (const { run, ms } of mine) {
      addSamples((run.sampled ??= noCounts()), d, (d.n * kept * ms) / total, spanShares(run.handlesSeen, read, slackMs));
      changed.add(run);
    }
  }
  return { changed, unmatched };
}

/** A run's wait counts: pg_wait_sampling's once it has taken one of its samples (whole samples: a delta shared by two runs splits), else its polls'. */
export function countsOf(run: SampledCounts & Pick<WaitedRun, "sampled">): SampledCounts {
  const c = run.sampled && run.sampled.samples > 0 ? run.sampled : run;
  const r = Math.round;
  return {
    samples: r(c.samples),
    ioWaitSamples: r(c.ioWaitSamples),
    aioWaitSamples: r(c.aioWaitSamples),
    readWaitSamples: r(c.readWaitSamples),
    otherIoWaitSamples: r(c.otherIoWaitSamples),
    cpuSamples: r(c.cpuSamples),
    asyncSamples: r(c.asyncSamples),
    syncSamples: r(c.syncSamples),
  };
}
