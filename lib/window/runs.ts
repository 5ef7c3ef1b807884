// Query runs: a backend's statement (pid + query start), parallel workers
// folded into their leader, accumulated sample by sample.
import type { QueryRun, Relation } from "../schemas/runs";
import { mergeBlocks, type HandleBlocks, type RunBackend, type RunObservation } from "./derive";
import { verdictOf } from "./verdict";

/** A relation file's name and size as far as they are known (a pure read). */
export type RelationLookup = (dbOid: number, filenode: number) => Relation;

const MAX_ENDED_RUNS = 2000;

/**
 * Where a run's async reads of one file have got to. A sequential scan of a
 * table larger than shared_buffers / 4 is synchronized: it starts where
 * another scan of the table is (or stopped) and wraps around at the end, so
 * a block below the first one seen means the scan has wrapped.
 */
export interface ScanSpan {
  dbOid: number;
  filenode: number;
  /** the lowest block in flight when the file was first seen */
  start: number;
  /** the highest block in flight from `start` on, before any wrap */
  high: number;
  /** after a wrap: the furthest block reached below `start` */
  wrappedTo: number | null;
}

export function advanceSpan(span: ScanSpan | undefined, b: HandleBlocks): ScanSpan {
  if (!span) return { dbOid: b.dbOid, filenode: b.filenode, start: b.first, high: b.last, wrappedTo: null };
  // Blocks are handed out in increasing order (mod the relation's size), so
  // every handle issued after the first sample lies above `start` until the
  // scan wraps. A sample straddling the wrap gives its lowest block only.
  if (b.first < span.start) {
    const below = b.last < span.start;
    return { ...span, high: below ? span.high : Math.max(span.high, b.last), wrappedTo: Math.max(span.wrappedTo ?? 0, below ? b.last : b.first) };
  }
  return { ...span, high: Math.max(span.high, b.last) };
}

/**
 * A first block seen this close to the relation's start is taken as a scan
 * from block 0 that the sampler met a little late; further in, as a
 * synchronized scan that began there.
 */
const FROM_ZERO_SHARE = 0.1;

/**
 * Share of the relation covered since the first block seen (not the
 * position: a synchronized scan begun mid-table would read 60% at its start
 * and drop at the wrap). Rises monotonically; a scan first seen late reads
 * low by what it covered before.
 */
export function spanProgress(span: ScanSpan, blocks: number): number {
  const start = span.start < blocks * FROM_ZERO_SHARE ? 0 : span.start;
  const done = span.wrappedTo === null ? span.high - start + 1 : blocks - start + span.wrappedTo + 1;
  return Math.max(0, Math.min(1, done / blocks));
}

/** Blocks covered so far: the span's length, from block 0 when it began near it. */
export function spanCovered(span: ScanSpan, blocks: number | null): number {
  const start = blocks !== null && span.start < blocks * FROM_ZERO_SHARE ? 0 : span.start;
  return span.wrappedTo === null ? span.high - start + 1 : (blocks ?? span.high + 1) - start + span.wrappedTo + 1;
}

/** The read rate is judged over this long. */
const RATE_SPAN_MS = 3000;
/** ...and needs positions at least this far apart. */
const RATE_MIN_MS = 500;

interface Sums {
  asyncHandles: number;
  asyncBytes: number;
  syncHandles: number;
  syncBytes: number;
}

interface RunAccum extends Omit<QueryRun, "readBlocksPerSec" | "etaMs" | "asyncReadBytes" | "syncReadBytes"> {
  scans: Map<string, ScanSpan>;
  /** files read through async handles */
  asyncFiles: Set<string>;
  /** files read through synchronous handles (some also through async ones) */
  syncFiles: Map<string, HandleBlocks>;
  sums: Sums;
  /** blocks covered of the furthest scan, at sample times (the last few seconds) */
  coverage: { t: number; blocks: number }[];
}

/** When `run` ended, by what its backend does now: null when that is not known (the backend is gone). */
function endedBy(run: Pick<RunAccum, "id" | "startedAt">, backend: RunBackend | undefined): number | null {
  if (!backend) return null;
  if (backend.runId === run.id) return backend.idleSinceMs;
  return backend.queryStartMs > run.startedAt ? backend.queryStartMs : null;
}

export class RunStore {
  private open = new Map<string, RunAccum>();
  private ended: RunAccum[] = [];

  constructor(private readonly lookup: RelationLookup) {}

  /**
   * Applies one successful sample: runs not seen in it have ended, at `t`
   * unless their backend says sooner (`backends`, by pid): idle since the
   * statement ended (its state_change), or running the next statement, begun
   * after this one ended. Never before the last sample that saw it active.
   */
  observe(t: number, observations: RunObservation[], backends: ReadonlyMap<number, RunBackend> = new Map()): void {
    const seen = new Set<string>();
    for (const obs of observations) {
      seen.add(obs.sample.id);
      const run = this.open.get(obs.sample.id) ?? this.begin(t, obs);
      this.apply(run, t, obs);
    }
    for (const [id, run] of this.open) {
      if (seen.has(id)) continue;
      run.endedAt = Math.min(t, Math.max(run.lastSeen, endedBy(run, backends.get(run.pid)) ?? t));
      run.inFlightNow = 0;
      run.bytesInFlight = 0;
      this.open.delete(id);
      this.ended.push(run);
    }
    if (this.ended.length > MAX_ENDED_RUNS) this.ended.splice(0, this.ended.length - MAX_ENDED_RUNS);
  }

  /** Ends every open run: the connection was lost, nothing more is known. */
  closeAll(t: number): void {
    this.observe(t, []);
  }

  evictBefore(cutoff: number): void {
    let drop = 0;
    while (drop < this.ended.length && (this.ended[drop].endedAt ?? 0) < cutoff) drop++;
    if (drop) this.ended.splice(0, drop);
  }

  openIds(): string[] {
    return [...this.open.keys()];
  }

  /** Running first (newest first), then ended, newest first. */
  list(): QueryRun[] {
    const running = [...this.open.values()].sort((a, b) => b.startedAt - a.startedAt);
    const ended = [...this.ended].reverse();
    return [...running, ...ended].map((run) => this.view(run));
  }

  get(id: string): QueryRun | undefined {
    const run = this.open.get(id) ?? this.ended.find((r) => r.id === id);
    return run && this.view(run);
  }

  private begin(t: number, obs: RunObservation): RunAccum {
    const row = obs.leader;
    const run: RunAccum = {
      id: obs.sample.id,
      pid: row.pid,
      workerPids: [],
      query: row.query ?? "",
      queryId: row.query_id,
      database: row.datname,
      user: row.usename,
      backendType: row.backend_type ?? "",
      startedAt: row.query_start_ms ?? t,
      firstSeen: t,
      lastSeen: t,
      endedAt: null,
      samples: 0,
      ioWaitSamples: 0,
      aioWaitSamples: 0,
      readWaitSamples: 0,
      otherIoWaitSamples: 0,
      cpuSamples: 0,
      aioSamples: 0,
      asyncSamples: 0,
      syncSamples: 0,
      aioReadSamples: 0,
      inFlightNow: 0,
      maxInFlight: 0,
      sumInFlight: 0,
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
    };
    this.open.set(run.id, run);
    return run;
  }

  private apply(run: RunAccum, t: number, obs: RunObservation): void {
    const { state, inFlight, syncInFlight } = obs.sample;
    // A statement sampled before parse analysis has no query id yet.
    run.queryId ??= obs.leader.query_id;
    run.lastSeen = t;
    run.samples++;
    if (state === "aio") run.aioWaitSamples++;
    else if (state === "read") run.readWaitSamples++;
    else if (state === "io") run.otherIoWaitSamples++;
    else if (state === "cpu") run.cpuSamples++;
    if (state === "aio" || state === "read" || state === "io") run.ioWaitSamples++;
    if (state === "read" || (syncInFlight ?? 0) > 0) run.syncSamples++;
    if (state === "aio" || (inFlight ?? 0) > 0) run.asyncSamples++;
    // Without a pg_aios read the handles are unknown: keep the last known.
    if (obs.handles && inFlight !== null) {
      run.aioReadSamples++;
      if (inFlight > 0) run.aioSamples++;
      run.inFlightNow = inFlight;
      run.maxInFlight = Math.max(run.maxInFlight, inFlight);
      run.sumInFlight += inFlight;
      run.bytesInFlight = obs.handles.asyncBytes;
      run.sums.asyncHandles += obs.handles.async;
      run.sums.asyncBytes += obs.handles.asyncBytes;
      run.sums.syncHandles += obs.handles.sync;
      run.sums.syncBytes += obs.handles.syncBytes;
    }
    for (const pid of obs.workerPids) if (!run.workerPids.includes(pid)) run.workerPids.push(pid);
    for (const [key, blocks] of obs.blocks) {
      run.asyncFiles.add(key);
      run.scans.set(key, advanceSpan(run.scans.get(key), blocks));
    }
    // A file read async gives its progress from those; one read only synchronously, from its combined reads.
    for (const [key, blocks] of obs.syncScans) if (!obs.blocks.has(key)) run.scans.set(key, advanceSpan(run.scans.get(key), blocks));
    for (const blocks of obs.syncFiles.values()) mergeBlocks(run.syncFiles, blocks);
    if (obs.blocks.size || obs.syncScans.size) this.noteCoverage(run, t);
    run.verdict = verdictOf(run);
  }

  private noteCoverage(run: RunAccum, t: number): void {
    let blocks = 0;
    for (const span of run.scans.values()) blocks = Math.max(blocks, spanCovered(span, this.relation(span.dbOid, span.filenode).blocks));
    run.coverage.push({ t, blocks });
    while (run.coverage.length > 2 && run.coverage[0].t < t - RATE_SPAN_MS) run.coverage.shift();
  }

  /** Blocks covered per second over the last few seconds, from the oldest position kept to the newest. */
  private rate(run: RunAccum): number | null {
    const first = run.coverage[0];
    const last = run.coverage.at(-1);
    if (!first || !last || last.t - first.t < RATE_MIN_MS) return null;
    return ((last.blocks - first.blocks) / (last.t - first.t)) * 1000;
  }

  private relation(dbOid: number, filenode: number): Relation {
    return this.lookup(dbOid, filenode);
  }

  private view(run: RunAccum): QueryRun {
    const { scans, asyncFiles, syncFiles, sums, coverage, ...rest } = run;
    const relations: Relation[] = [];
    let progress: number | null = null;
    let progressRelation: string | null = null;
    let progressBlocks: number | null = null;
    for (const [key, span] of scans) {
      const rel = this.relation(span.dbOid, span.filenode);
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
    // Single-block synchronous reads (index pages in 18) name a relation, never a progress.
    for (const [key, b] of syncFiles) if (!scans.has(key)) relations.push({ ...this.relation(b.dbOid, b.filenode), read: "sync" });
    const rate = run.endedAt === null ? this.rate(run) : null;
    const left = progress !== null && progressBlocks !== null ? (1 - progress) * progressBlocks : null;
    return {
      ...rest,
      workerPids: [...rest.workerPids],
      relations,
      progress,
      progressRelation,
      readBlocksPerSec: rate === null ? null : Math.round(rate),
      etaMs: rate !== null && rate > 0 && left !== null ? Math.round((left / rate) * 1000) : null,
      asyncReadBytes: sums.asyncHandles ? Math.round(sums.asyncBytes / sums.asyncHandles) : null,
      syncReadBytes: sums.syncHandles ? Math.round(sums.syncBytes / sums.syncHandles) : null,
    };
  }
}
