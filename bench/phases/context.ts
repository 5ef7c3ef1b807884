// What every phase of the bench is given: the config, the target and the
// inflight servers watching it, the results being filled in, and the log.
import type { BenchConfig, Roles } from "../lib/config";
import type { Inflight } from "../lib/inflight";
import type { Peer } from "../lib/peers";
import type { ScanDriver } from "../lib/scans";
import type { SseViewer } from "../lib/sse";
import type { BenchTarget } from "../lib/target";

export type Json = Record<string, unknown>;

/** What the run has started and must stop at its end, whatever happened. */
export interface Running {
  target: BenchTarget | null;
  driver: ScanDriver | null;
  servers: Inflight[];
  peers: Peer[];
  viewers: SseViewer[];
}

/** The memory server E's readings: started in phase 2, told to stop before the browser phase. */
export interface MemoryWatch {
  task: Promise<void>;
  stop: boolean;
}

export interface Bench {
  cfg: BenchConfig;
  roles: Roles;
  /** the project; bench/tmp; the snapshot of the built app that every server serves */
  paths: { root: string; tmp: string; app: string };
  /** when the run started (ms) */
  started: number;
  /** bench/results.json as it is filled in */
  results: Json;
  /** the results' errors list: a phase that fails adds to it and the run goes on */
  errors: string[];
  log: (line: string) => void;
  /** writes the results as they are so far */
  save: () => void;
  running: Running;
  memory: MemoryWatch;
}

/** What setup started, for the phases after it. */
export interface Rig {
  target: BenchTarget;
  scans: ScanDriver;
  /** 10/s with a 15-minute window (BENCH_WINDOW_MIN), watched from start to end */
  A: Inflight;
  /** 1/s, beside A in phase 1 */
  D: Inflight;
  /** A's RSS right after it started (figure 5) */
  rssAStart: number | null;
}

export type PhaseContext = Bench & Rig;
