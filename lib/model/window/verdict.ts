// A run's verdict, weighed: how it reads (asynchronously, synchronously, or
// not from disk) from the share of its samples that saw each kind of read,
// with a minimum of evidence, so that one sample does not flip it. Index
// lookups in 18 read synchronously, yet an async handle can show up in a
// sample of them (PostgreSQL does not promise none): "synchronous; an async
// read in flight in 1 of 41 samples that read pg_aios", not "async". The
// run's one read share (readShare) is said here too, in every place's words.
import { formatShare } from "../../format";
import type { QueryRun, Verdict } from "../../schemas/runs";

/** The other kind of read in under this share of the samples that read is a minority: named, not the verdict. */
export const VERDICT_MINORITY_SHARE = 0.1;
/** Async reads in fewer samples than this, beside synchronous ones, are a minority however the shares fall. */
export const VERDICT_MIN_SAMPLES = 2;

export type VerdictCounts = Pick<QueryRun, "samples" | "asyncSamples" | "syncSamples">;

/** Async unless its async reads are a minority of the samples that read; sync with any read left; else cpu. */
export function verdictOf(run: VerdictCounts): Verdict {
  const { asyncSamples: a, syncSamples: s } = run;
  if (a === 0) return s > 0 ? "sync" : "cpu";
  if (s === 0) return "async";
  return a < VERDICT_MIN_SAMPLES || a / (a + s) < VERDICT_MINORITY_SHARE ? "sync" : "async";
}

const inSamples = (n: number, of: number) => `in ${n} of ${of} sample${of === 1 ? "" : "s"}`;

export type ReadShareCounts = Pick<QueryRun, "samples" | "aioWaitSamples" | "readWaitSamples">;

/**
 * The one read share of a run, said the same way in its row, its finding
 * and its verdict: samples waiting on a read, async (IO:AioIoCompletion) or
 * synchronous (IO:DataFileRead), of all its samples (what EXPLAIN's I/O
 * timings compare to). A sampled estimate.
 */
export interface ReadShare {
  waits: number;
  share: number;
  /** "waiting on reads in 10 of 34 samples" */
  text: string;
  /** "29%" */
  percent: string;
  /** "async 0, synchronous 10"; "" without a read wait */
  split: string;
}

export function readShare(run: ReadShareCounts): ReadShare {
  const waits = run.aioWaitSamples + run.readWaitSamples;
  const share = waits / Math.max(1, run.samples);
  return {
    waits,
    share,
    text: `waiting on reads ${inSamples(waits, run.samples)}`,
    percent: formatShare(share),
    split: waits ? `async ${run.aioWaitSamples}, synchronous ${run.readWaitSamples}` : "",
  };
}

/** "waiting on reads in 10 of 34 samples (29%: async 0, synchronous 10)": the read share in a sentence. */
export function readShareSentence(run: ReadShareCounts): string {
  const r = readShare(run);
  return `${r.text} (${r.percent}${r.split ? `: ${r.split}` : ""})`;
}

export type MinorityCounts = VerdictCounts & ReadShareCounts & Pick<QueryRun, "verdict" | "aioSamples" | "aioReadSamples">;

/**
 * The kind of read the verdict is not, when the run also read that way, in
 * the read share's words and figures ("waiting on async reads in 3 of 41
 * samples", the split's async 3), or, never waited on, as reads in flight
 * ("an async read in flight in 1 of 41 samples that read pg_aios"). Null
 * when it read one way only (or not at all).
 */
export function verdictMinority(run: MinorityCounts): string | null {
  if (run.verdict === "sync" && run.asyncSamples > 0) {
    if (run.aioWaitSamples > 0) return `waiting on async reads ${inSamples(run.aioWaitSamples, run.samples)}`;
    return `${run.aioSamples === 1 ? "an async read" : "async reads"} in flight ${inSamples(run.aioSamples, run.aioReadSamples)} that read pg_aios`;
  }
  if (run.verdict === "async" && run.syncSamples > 0) {
    if (run.readWaitSamples > 0) return `waiting on synchronous reads ${inSamples(run.readWaitSamples, run.samples)}`;
    // No IO:DataFileRead wait: its synchronous reads are f_sync handles, seen only where pg_aios was read.
    return `${run.syncSamples === 1 ? "a synchronous read" : "synchronous reads"} in flight ${inSamples(run.syncSamples, run.aioReadSamples)} that read pg_aios`;
  }
  return null;
}

const VERDICT_WORDS = { async: "asynchronous", sync: "synchronous", cpu: "no read seen" } as const satisfies Record<Verdict, string>;

/** "synchronous; waiting on async reads in 3 of 41 samples": the verdict and its mix in one phrase. */
export function verdictText(run: MinorityCounts): string {
  const minority = verdictMinority(run);
  return minority ? `${VERDICT_WORDS[run.verdict]}; ${minority}` : VERDICT_WORDS[run.verdict];
}
