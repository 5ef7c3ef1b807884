import "server-only";
import type { HistorySink } from "../history/sink";
import type { SampleSink } from "../history/samples";
import type { Cadences } from "./steps/step";

export interface CollectorOptions {
  id: string;
  name: string;
  demo: boolean;
  /** the sampling interval asked for while someone watches (INFLIGHT_SAMPLE_MS; the one in force is TargetInfo.sampleMs);
   * absent (the setting not given): watchedMs() chooses by the wait sampler in use */
  watchedSampleMs?: number;
  /** cadence while nobody watches */
  idleSampleMs: number;
  windowMs: number;
  /** client-side limit on one statement; the server's statement_timeout matches */
  statementTimeoutMs?: number;
  /** INFLIGHT_REDACT: literals replaced in query text that leaves the process */
  redact?: boolean;
  /** INFLIGHT_BUDGET: server time watching may cost this target, ms per second */
  budgetMsPerSecond?: number;
  /** the history on disk, for this target (default: none) */
  history?: HistorySink;
  /** the history on disk, for this target (default: none) */
  samples?: SampleSink;
  /** the periodic reads' intervals (tests shorten them) */
  cadences?: Partial<Cadences>;
  log?: (line: string) => void;
  /** this process's event-loop delay, so that its own lag is never read as the target's silence */
  loopLag?: { maxSince(t: number): number };
}

/** Extra samples when a statement starts, spread over the interval after it. */
export const BURST_SAMPLES = 3;
/** INFLIGHT_BUDGET's default: 5 ms of server time per second, 0.5% of one core. */
export const DEFAULT_BUDGET_MS = 5;
/** INFLIGHT_SAMPLE_MS's default: ten samples a second while someone watches. */
export const DEFAULT_WATCHED_SAMPLE_MS = 100;
/** ...and where pg_wait_sampling's profile is read: it gives the wait events (every 10 ms); the polls find the
 * runs and their pg_aios handles, and the profile the runs they miss (lib/model/window/missed-runs.ts). Four
 * polls a second and the profile cost less server time than ten polls alone (BENCHMARKS.md, figure 12). */
export const WAIT_SAMPLING_WATCHED_MS = 250;

/** The watched interval asked for: the operator's INFLIGHT_SAMPLE_MS where given, else by the wait sampler in use. */
export function watchedMs(given: number | undefined, waitSampling: boolean): number {
  return given ?? (waitSampling ? WAIT_SAMPLING_WATCHED_MS : DEFAULT_WATCHED_SAMPLE_MS);
}
