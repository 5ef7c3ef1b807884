// A run's verdict, weighed: how it reads (asynchronously, synchronously, or
// not from disk) from the share of its samples that saw each kind of read,
// with a minimum of evidence, so that one sample does not flip it. Index
// lookups in 18 read synchronously, yet an async handle can show up in a
// sample of them (PostgreSQL does not promise none): "synchronous; an async
// read in 1 of 41 samples", not "async".
import type { QueryRun, Verdict } from "../schemas/runs";

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

/**
 * The kind of read the verdict is not, when the run also read that way:
 * "an async read in 1 of 41 samples", "synchronous reads in 30 of 100
 * samples". Null when it read one way only (or not at all).
 */
export function verdictMinority(run: VerdictCounts & Pick<QueryRun, "verdict">): string | null {
  if (run.verdict === "sync" && run.asyncSamples > 0) return `${run.asyncSamples === 1 ? "an async read" : "async reads"} ${inSamples(run.asyncSamples, run.samples)}`;
  if (run.verdict === "async" && run.syncSamples > 0) return `${run.syncSamples === 1 ? "a synchronous read" : "synchronous reads"} ${inSamples(run.syncSamples, run.samples)}`;
  return null;
}

const VERDICT_WORDS = { async: "asynchronous", sync: "synchronous", cpu: "no read seen" } as const satisfies Record<Verdict, string>;

/** "synchronous; an async read in 1 of 41 samples": the verdict and its mix in one phrase. */
export function verdictText(run: VerdictCounts & Pick<QueryRun, "verdict">): string {
  const minority = verdictMinority(run);
  return minority ? `${VERDICT_WORDS[run.verdict]}; ${minority}` : VERDICT_WORDS[run.verdict];
}
