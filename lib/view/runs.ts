// Query runs: ordering and evidence for the table, and one run's timeline
// (its state in each sample, and its reads in flight) from the ticks.
import type { QueryRun, Verdict } from "@/lib/schemas/runs";
import type { RunState, Tick } from "@/lib/schemas/tick";
import { runFigures } from "@/lib/model/window/findings/figures";
import { MIN_SAMPLES } from "@/lib/model/window/findings/thresholds";
import { readShare, verdictMinority } from "@/lib/model/window/verdict";
import { gapFlags, medianGap, shapeSeries, type Outage } from "./series";

export const RUN_SORTS = ["readWait", "elapsed", "inFlight"] as const;
export type RunSort = (typeof RUN_SORTS)[number];

export const RUN_SORT_LABELS = {
  readWait: "read wait",
  elapsed: "elapsed",
  inFlight: "in flight",
} as const satisfies Record<RunSort, string>;

export const VERDICT_LABELS = {
  async: "async reads",
  sync: "synchronous reads",
  cpu: "not waiting on reads",
} as const satisfies Record<Verdict, string>;

/** The verdict in words; a run sampled too few times to tell says so rather than "not waiting on reads". */
export function verdictLabel(run: QueryRun): string {
  if (run.verdict === "cpu" && run.samples < MIN_SAMPLES) return "no read seen";
  return VERDICT_LABELS[run.verdict];
}

/**
 * The one read-wait figure, the findings' own: samples waiting on a read
 * (IO:AioIoCompletion or IO:DataFileRead) / samples. A sampled estimate;
 * other IO waits (not reads) are not in it. Null without samples.
 */
export function readWaitShare(run: QueryRun): number | null {
  return run.samples > 0 ? runFigures(run, run.lastSeen).readWait : null;
}

/** How long the run has lasted, up to `now` (server time) while it runs. */
export function elapsedMs(run: QueryRun, now: number): number {
  return Math.max(0, (run.endedAt ?? Math.max(now, run.lastSeen)) - run.startedAt);
}

export const isRunning = (run: QueryRun) => run.endedAt === null;

const sortValue = {
  readWait: (r: QueryRun) => readWaitShare(r) ?? -1,
  elapsed: (r: QueryRun, now: number) => elapsedMs(r, now),
  inFlight: (r: QueryRun) => (isRunning(r) ? r.inFlightNow : r.maxInFlight),
} as const satisfies Record<RunSort, (r: QueryRun, now: number) => number>;

/** Running first, then by the chosen figure, largest first; newest start breaks ties. */
export function sortRuns(runs: readonly QueryRun[], by: RunSort, now: number): QueryRun[] {
  const value = sortValue[by];
  return [...runs].sort(
    (a, b) => Number(isRunning(b)) - Number(isRunning(a)) || value(b, now) - value(a, now) || b.startedAt - a.startedAt,
  );
}

const of = (n: number, total: number) => `${n} of ${total} sample${total === 1 ? "" : "s"}`;

/**
 * Why the verdict says what it says, each count named for what it counts:
 * reads in flight are counted in the samples that read pg_aios, not in all.
 */
export function verdictEvidence(run: QueryRun): string {
  const parts: string[] = [];
  if (run.verdict === "cpu") {
    parts.push(`on CPU in ${of(run.cpuSamples, run.samples)}`);
    // The run's one read share, in its words (lib/model/window/verdict.ts).
    const reads = readShare(run);
    if (reads.waits) parts.push(reads.text);
    if (run.otherIoWaitSamples) parts.push(`other IO waits (not reads) in ${run.otherIoWaitSamples}`);
    const rest = run.samples - run.cpuSamples - run.ioWaitSamples;
    if (rest > 0) parts.push(`other waits in ${rest}`);
    return parts.join("; ");
  }
  const thatRead = `${run.aioReadSamples} sample${run.aioReadSamples === 1 ? "" : "s"} that read pg_aios`;
  // An async verdict with no handle seen is its IO:Aio* waits: say them, not "in flight in 0".
  const asyncPart =
    run.aioSamples > 0
      ? `reads in flight in ${run.aioSamples} of ${thatRead}`
      : run.aioReadSamples > 0
        ? `waiting on async reads in ${of(run.aioWaitSamples, run.samples)}; none of its own in flight in the ${thatRead}`
        : `waiting on async reads in ${of(run.aioWaitSamples, run.samples)} (pg_aios not read)`;
  // No share of its own for a synchronous run: its one read share is the read-wait cell beside it, as in its finding.
  parts.push(run.verdict === "async" ? asyncPart : "its own reads (IO:DataFileRead or an f_sync handle)");
  // The other kind of read, in the read share's words (or as reads in flight, never waited on).
  const minority = verdictMinority(run);
  if (minority) parts.push(run.verdict === "sync" ? `${minority}, a minority` : minority);
  if (run.maxInFlight) parts.push(`peak ${run.maxInFlight} of its own in flight`);
  return parts.join("; ");
}

export interface RunSampleRow {
  t: number;
  state: RunState;
  /** null: pg_aios was not read in that sample */
  inFlight: number | null;
  syncInFlight: number | null;
}

/** The samples of one run, in time order. */
export function runSamples(ticks: readonly Tick[], runId: string): RunSampleRow[] {
  const out: RunSampleRow[] = [];
  for (const tick of ticks) {
    const s = tick.runs.find((r) => r.id === runId);
    if (s) out.push({ t: tick.t, state: s.state, inFlight: s.inFlight, syncInFlight: s.syncInFlight });
  }
  return out;
}

/** The same samples of a run (the window only ever adds them at the end and drops them at the start). */
export function sameSamples(a: readonly RunSampleRow[], b: readonly RunSampleRow[]): boolean {
  return a.length === b.length && a[0]?.t === b[0]?.t && a.at(-1)?.t === b.at(-1)?.t && a.at(-1)?.state === b.at(-1)?.state;
}

export interface StateSegment {
  from: number;
  to: number;
  state: RunState;
}

/**
 * Consecutive samples in the same state as one segment. A segment lasts until
 * the next sample, or one interval after the last one before a gap: nothing
 * is drawn where the run was not sampled.
 */
export function stateSegments(samples: readonly RunSampleRow[], cadenceMs: number, outages: readonly Outage[] = []): StateSegment[] {
  const gaps = gapFlags(
    samples.map((s) => s.t),
    cadenceMs,
    outages,
  );
  const segments: StateSegment[] = [];
  samples.forEach((s, i) => {
    const next = samples[i + 1];
    const to = next && !gaps[i + 1] ? next.t : s.t + cadenceMs;
    const last = segments.at(-1);
    if (last && last.state === s.state && last.to === s.t && !gaps[i]) last.to = to;
    else segments.push({ from: s.t, to, state: s.state });
  });
  return segments;
}

export function stateCounts(samples: readonly RunSampleRow[]): Record<RunState, number> {
  const counts: Record<RunState, number> = { aio: 0, read: 0, io: 0, cpu: 0, other: 0 };
  for (const s of samples) counts[s.state]++;
  return counts;
}

export interface RunLineRow {
  t: number;
  inFlight: number | null;
  syncInFlight: number | null;
}

/** The run's reads in flight, from the samples that read pg_aios. */
/** A run's line is one series of two keys, drawn as steps: the line budget (docs/CHARTS.md, rule 1). */
export const RUN_LINE_MAX_POINTS = 600;

export function runLine(
  all: readonly RunSampleRow[],
  cadenceMs: number,
  outages: readonly Outage[],
  maxPoints = RUN_LINE_MAX_POINTS,
): RunLineRow[] {
  const samples = all.filter(
    (s): s is RunSampleRow & { inFlight: number; syncInFlight: number } => s.inFlight !== null && s.syncInFlight !== null,
  );
  if (!samples.length) return [];
  const domain = { from: samples[0].t, to: samples[samples.length - 1].t };
  return shapeSeries(
    samples,
    {
      time: (s) => s.t,
      keys: [(s) => s.inFlight, (s) => s.syncInFlight],
      domain,
      cadenceMs: Math.max(cadenceMs, medianGap(samples, domain)),
      outages,
      maxPoints,
    },
    (s): RunLineRow => ({ t: s.t, inFlight: s.inFlight, syncInFlight: s.syncInFlight }),
    (t): RunLineRow => ({ t, inFlight: null, syncInFlight: null }),
  );
}

/** Why the run's in-flight line is empty: pg_aios never read in its samples (unknown), or read with nothing in flight. */
export function runLineEmpty(samples: readonly RunSampleRow[], line: readonly RunLineRow[]): string | null {
  if (samples.length && samples.every((s) => s.inFlight === null))
    return "pg_aios was not read in any sample of this run (the budget spaced it out): its reads in flight are unknown, not 0";
  return line.every((r) => !r.inFlight && !r.syncInFlight) ? "No reads in flight in any sample of this run that read pg_aios" : null;
}
