// A query run as the window accumulates it sample by sample (RunAccum), and
// as the wire has it (QueryRun): its relations, progress, read rate and time
// left, built from the accumulated figures.
import type { QueryRun, Relation } from "../../schemas/runs";
import type { HandleBlocks } from "./derive";
import { countOf } from "./run-now";
import { countsOf, noCounts, type HandlesSeen, type SampledCounts } from "./run-waits";
import { spanProgress, type ScanSpan } from "./scan-span";
import { timeLeft, type Position } from "./time-left";

/** The read rate is judged over this long. */
export const RATE_SPAN_MS = 3000;
/** ...and needs positions at least this far apart. */
const RATE_MIN_MS = 500;

interface Sums {
  asyncHandles: number;
  asyncBytes: number;
  syncHandles: number;
  syncBytes: number;
}

export interface RunAccum extends Omit<
  QueryRun,
  "readBlocksPerSec" | "etaMs" | "etaRangeMs" | "asyncReadBytes" | "syncReadBytes" | "nowWaits"
> {
  /** the wait keys of its last few samples, oldest first (run-now.ts) */
  recent: string[];
  scans: Map<string, ScanSpan>;
  /** files read through async handles */
  asyncFiles: Set<string>;
  /** files read through synchronous handles (some also through async ones) */
  syncFiles: Map<string, HandleBlocks>;
  sums: Sums;
  /** blocks covered of the furthest scan, at sample times (the last few seconds) */
  coverage: { t: number; blocks: number }[];
  /** the same over the whole run, thinned (lib/model/window/time-left.ts): the time left's evidence */
  trail: readonly Position[];
  /** its counts from pg_wait_sampling's samples (run-waits.ts); null before one */
  sampled: SampledCounts | null;
  handlesSeen: HandlesSeen[];
  /** bumped by every sample of the run and by its end: what its view is built from changed */
  version: number;
  /** the view last built, for the version it was built at and the relations it named */
  built: { version: number; relations: readonly Relation[]; view: QueryRun } | null;
}

/** A run with nothing accumulated yet: its identity from the caller, every figure at zero. */
export function blankRun(id: string, pid: number, t: number): RunAccum {
  return {
    id,
    pid,
    workerPids: [],
    query: "",
    queryId: null,
    database: null,
    user: null,
    backendType: "",
    startedAt: t,
    firstSeen: t,
    lastSeen: t,
    endedAt: null,
    ...noCounts(),
    aioReadSamples: 0,
    aioSamples: 0,
    maxInFlight: 0,
    sumInFlight: 0,
    inFlightNow: 0,
    bytesInFlight: 0,
    verdict: "cpu",
    relations: [],
    progress: null,
    progressRelation: null,
    scans: new Map(),
    asyncFiles: new Set(),
    syncFiles: new Map(),
    sums: { asyncHandles: 0, asyncBytes: 0, syncHandles: 0, syncBytes: 0 },
    coverage: [],
    sampled: null,
    handlesSeen: [],
    recent: [],
    trail: [],
    version: 0,
    built: null,
  };
}

/** Blocks covered per second over the last few seconds, from the oldest position kept to the newest. */
export function coverageRate(run: Pick<RunAccum, "coverage">): number | null {
  const first = run.coverage[0];
  const last = run.coverage.at(-1);
  if (!first || !last || last.t - first.t < RATE_MIN_MS) return null;
  return ((last.blocks - first.blocks) / (last.t - first.t)) * 1000;
}

export function buildRun(run: RunAccum, files: readonly Relation[]): QueryRun {
  const {
    scans,
    asyncFiles,
    syncFiles,
    sums,
    coverage,
    recent,
    trail,
    sampled: _sampled,
    handlesSeen: _handles,
    version: _version,
    built: _built,
    ...rest
  } = run;
  const relations: Relation[] = [];
  let progress: number | null = null;
  let progressRelation: string | null = null;
  let progressBlocks: number | null = null;
  let i = 0;
  for (const [key, span] of scans) {
    const rel = files[i++];
    relations.push({ ...rel, read: asyncFiles.has(key) ? (syncFiles.has(key) ? "both" : "async") : "sync" });
    // The relation covered furthest gives the scan's progress.
    if (rel.blocks && rel.blocks > 0) {
      const share = spanProgress(span, rel.blocks);
      if (progress === null || share > progress) {
        progress = share;
        progressRelation = rel.name;
        progressBlocks = rel.blocks;
      }
    }
  }
  for (; i < files.length; i++) relations.push({ ...files[i], read: "sync" });
  const rate = run.endedAt === null ? coverageRate(run) : null;
  const left = progress !== null && progressBlocks !== null ? (1 - progress) * progressBlocks : null;
  const eta = run.endedAt === null && left !== null ? timeLeft(trail, left, run.lastSeen) : null;
  return {
    ...rest,
    ...countsOf(run),
    workerPids: [...rest.workerPids],
    relations,
    progress,
    progressRelation,
    readBlocksPerSec: rate === null ? null : Math.round(rate),
    etaMs: eta?.midMs ?? null,
    etaRangeMs: eta ? [eta.lowMs, eta.highMs] : null,
    nowWaits: countOf(run.endedAt === null ? recent : []),
    asyncReadBytes: sums.asyncHandles ? Math.round(sums.asyncBytes / sums.asyncHandles) : null,
    syncReadBytes: sums.syncHandles ? Math.round(sums.syncBytes / sums.syncHandles) : null,
  };
}

/** Whether two lookups of a run's files name and size them alike (what its view shows of them). */
export function sameFiles(a: readonly Relation[], b: readonly Relation[]): boolean {
  return a.length === b.length && a.every((r, i) => r.name === b[i].name && r.blocks === b[i].blocks);
}
