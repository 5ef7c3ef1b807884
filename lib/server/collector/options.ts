import "server-only";
import type { HistorySink } from "../history/sink";
import type { SampleSink } from "../history/samples";
import type { Cadences } from "./steps/step";

export interface CollectorOptions {
  id: string;
  name: string;
  demo: boolean;
  /** the sampling interval asked for while someone watches (INFLIGHT_SAMPLE_MS; the one in force is TargetInfo.sampleMs) */
  watchedSampleMs: number;
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
