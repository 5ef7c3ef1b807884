// From one sample of pg_stat_activity + pg_aios to the tick the window keeps.
import type { Tick, RunSample, RunState } from "../../schemas/tick";
import type { AioHandle, SampledBackend } from "../../schemas/rows";
import { fileKey } from "./relations";

const IO_WORKER = "io worker";
const PARALLEL_WORKER = "parallel worker";
/** Backends whose statements are query runs. */
const RUN_BACKENDS = new Set(["client backend", "autovacuum worker", "background worker"]);
/** Backends counted in the wait-event breakdown. */
const WAIT_BACKENDS = new Set(["client backend", PARALLEL_WORKER, "autovacuum worker", "background worker"]);

export function classifyWait(type: string | null, event: string | null): RunState {
  if (type === null) return "cpu";
  if (type !== "IO") return "other";
  if (event !== null && event.startsWith("Aio")) return "aio";
  if (event === "DataFileRead" || event === "DataFilePrefetch") return "read";
  return "io";
}

export function waitKey(type: string | null, event: string | null): string {
  return type === null ? "CPU" : `${type}:${event ?? "?"}`;
}

export interface HandleBlocks {
  dbOid: number;
  filenode: number;
  first: number;
  last: number;
}

const TARGET_DESC = /blocks? (\d+)(?:\.\.(\d+))? in file "(?:base\/(\d+)|global)\/(\d+)/;

/** `blocks 31807..31822 in file "base/5/16384"` -> the blocks and the file. */
export function parseTargetDesc(desc: string | null): HandleBlocks | null {
  if (!desc) return null;
  const m = TARGET_DESC.exec(desc);
  if (!m) return null;
  const first = Number(m[1]);
  return { first, last: m[2] ? Number(m[2]) : first, dbOid: m[3] ? Number(m[3]) : 0, filenode: Number(m[4]) };
}

export function runId(pid: number, queryStartMs: number): string {
  return `${pid}:${Math.round(queryStartMs)}`;
}

/** What a run looked like in one sample: leader and its parallel workers. */
export interface RunObservation {
  sample: RunSample;
  leader: SampledBackend;
  workerPids: number[];
  /** its handles, null when pg_aios was not read */
  handles: HandleTotals | null;
  /** per `${dbOid}/${filenode}`, async handles: lowest first and highest last block in flight */
  blocks: Map<string, HandleBlocks>;
  /** files read through synchronous handles (index pages, mostly): named */
  syncFiles: Map<string, HandleBlocks>;
  /** of those, synchronous reads of several blocks at once: a scan reading
   * without keeping reads in flight (io_method = sync shows these in pg_aios),
   * whose positions give its progress as async ones do */
  syncScans: Map<string, HandleBlocks>;
}

export interface DerivedSample {
  tick: Omit<Tick, "seq">;
  runs: RunObservation[];
  /** what each run's backend was doing, by pid: where an open run not seen active ended (RunStore.observe) */
  backends: Map<number, RunBackend>;
  /** the io workers' pids: which were launched or exited since the last sample (lib/model/window/pool.ts) */
  workerPids: number[];
}

function isActive(row: Pick<SampledBackend, "state">): boolean {
  return row.state === "active" || row.state === "fastpath function call";
}

/**
 * Whether pg_aios can hold anything worth reading: a backend is active (a
 * client, a parallel or autovacuum worker) or an io worker is executing a
 * read. An idle server has nothing in flight, and reading pg_aios costs the
 * same whether or not it does.
 */
export function anyReading(rows: readonly Pick<SampledBackend, "backend_type" | "state" | "wait_event">[]): boolean {
  return rows.some((r) =>
    r.backend_type === IO_WORKER ? r.wait_event !== "IoWorkerMain" : WAIT_BACKENDS.has(r.backend_type ?? "") && isActive(r),
  );
}

/** The pids whose waits a tick counts: active clients, parallel and autovacuum workers. */
export function waitingPids(rows: readonly Pick<SampledBackend, "pid" | "backend_type" | "state">[]): number[] {
  return rows.filter((r) => WAIT_BACKENDS.has(r.backend_type ?? "") && isActive(r)).map((r) => r.pid);
}

export interface HandleTotals {
  async: number;
  asyncBytes: number;
  sync: number;
  syncBytes: number;
}

export const blocksKey = (b: Pick<HandleBlocks, "dbOid" | "filenode">): string => fileKey(b.dbOid, b.filenode);

/** Widens the span of blocks seen in a file: lowest first, highest last. */
export function mergeBlocks(into: Map<string, HandleBlocks>, b: HandleBlocks): void {
  const key = blocksKey(b);
  const seen = into.get(key);
  if (!seen) into.set(key, { ...b });
  else into.set(key, { ...seen, first: Math.min(seen.first, b.first), last: Math.max(seen.last, b.last) });
}

interface RunFiles {
  blocks: Map<string, HandleBlocks>;
  syncFiles: Map<string, HandleBlocks>;
  syncScans: Map<string, HandleBlocks>;
}

/** A handle's operation as a label: a handle handed out but not yet defined has none. */
export const NO_OPERATION = "invalid";

function addHandles(totals: HandleTotals, handles: AioHandle[] | null, files: RunFiles) {
  for (const [, , len, fSync, desc] of handles ?? []) {
    // Handed out, not yet defined (f_sync NULL): no read yet, neither async nor synchronous. Under
    // io_method = sync it is the only handle with f_sync not true; counted as async, it read as one.
    if (fSync === null) continue;
    const parsed = parseTargetDesc(desc);
    const length = len ?? 0;
    if (fSync) {
      totals.sync++;
      totals.syncBytes += length;
      if (parsed) mergeBlocks(files.syncFiles, parsed);
      if (parsed && parsed.last > parsed.first) mergeBlocks(files.syncScans, parsed);
      continue;
    }
    totals.async++;
    totals.asyncBytes += length;
    if (parsed) mergeBlocks(files.blocks, parsed);
  }
}

/** How pg_aios stands in a sample: read; not read because no backend was
 * active (nothing in flight, known); or not read (budget, no pg_aios). */
export type AioReading = "read" | "idle" | "unknown";

export function deriveSample(
  t: number,
  rows: SampledBackend[],
  configuredWorkers: number | null,
  reading: AioReading = "read",
): DerivedSample {
  const aio = {
    inFlight: 0,
    bytes: 0,
    byState: {} as Record<string, number>,
    byOperation: {} as Record<string, number>,
    byStateOperation: {} as Record<string, number>,
    sync: 0,
    syncBytes: 0,
  };
  const workers = { configured: configuredWorkers, alive: 0, busy: 0 };
  const waits: Record<string, number> = {};
  const workerPids: number[] = [];
  let active = 0;

  for (const row of rows) {
    for (const [stateOrNull, operationOrNull, len, fSync] of row.handles ?? []) {
      const length = len ?? 0;
      const state = stateOrNull ?? "OTHER";
      const operation = operationOrNull ?? NO_OPERATION;
      if (fSync) {
        aio.sync++;
        aio.syncBytes += length;
      } else {
        aio.inFlight++;
        aio.bytes += length;
        aio.byState[state] = (aio.byState[state] ?? 0) + 1;
        aio.byOperation[operation] = (aio.byOperation[operation] ?? 0) + 1;
        const both = `${state}/${operation}`;
        aio.byStateOperation[both] = (aio.byStateOperation[both] ?? 0) + 1;
      }
    }
    const type = row.backend_type ?? "";
    if (type === IO_WORKER) {
      workers.alive++;
      workerPids.push(row.pid);
      if (row.wait_event !== "IoWorkerMain") workers.busy++;
      continue;
    }
    if (!isActive(row)) continue;
    if (type === "client backend") active++;
    if (WAIT_BACKENDS.has(type)) {
      const key = waitKey(row.wait_event_type, row.wait_event);
      waits[key] = (waits[key] ?? 0) + 1;
    }
  }

  const runs = deriveRuns(rows, reading !== "unknown");
  return {
    tick: { t, aio: reading === "unknown" ? null : aio, workers, waits, active, runs: runs.map((r) => r.sample) },
    runs,
    backends: runBackends(rows),
    workerPids,
  };
}

/** A backend that runs statements, as a sample saw it: its statement, and since when it is idle. */
export interface RunBackend {
  /** the run its statement is (pid:query start) */
  runId: string;
  queryStartMs: number;
  /** its state_change when idle (the statement ended then); null while active */
  idleSinceMs: number | null;
  /** its statement's query_id (the last one's while idle); null where not computed */
  queryId: string | null;
}

/** The backends of the sample that run statements, active or gone idle (activity.sql returns those of open runs), by pid. */
function runBackends(rows: readonly SampledBackend[]): Map<number, RunBackend> {
  const backends = new Map<number, RunBackend>();
  for (const row of rows) {
    if (!RUN_BACKENDS.has(row.backend_type ?? "") || row.query_start_ms === null) continue;
    const idle = row.state?.startsWith("idle") ?? false;
    backends.set(row.pid, {
      runId: runId(row.pid, row.query_start_ms),
      queryStartMs: row.query_start_ms,
      idleSinceMs: idle ? row.state_change_ms : null,
      queryId: row.query_id,
    });
  }
  return backends;
}

function deriveRuns(rows: SampledBackend[], aioKnown: boolean): RunObservation[] {
  const byLeader = new Map<number, RunObservation & { totals: HandleTotals }>();
  for (const row of rows) {
    if (!RUN_BACKENDS.has(row.backend_type ?? "") || !isActive(row) || row.query_start_ms === null) continue;
    const totals = { async: 0, asyncBytes: 0, sync: 0, syncBytes: 0 };
    const files: RunFiles = { blocks: new Map(), syncFiles: new Map(), syncScans: new Map() };
    addHandles(totals, row.handles, files);
    byLeader.set(row.pid, {
      sample: {
        id: runId(row.pid, row.query_start_ms),
        state: classifyWait(row.wait_event_type, row.wait_event),
        inFlight: null,
        syncInFlight: null,
      },
      leader: row,
      workerPids: [],
      handles: null,
      ...files,
      totals,
    });
  }
  // Parallel workers issue their own reads under their own pid: fold them in.
  for (const row of rows) {
    if (row.backend_type !== PARALLEL_WORKER || row.leader_pid === null) continue;
    const run = byLeader.get(row.leader_pid);
    if (!run) continue;
    run.workerPids.push(row.pid);
    addHandles(run.totals, row.handles, run);
  }
  return [...byLeader.values()].map(({ totals, ...run }) => {
    if (!aioKnown) return run;
    run.sample.inFlight = totals.async;
    run.sample.syncInFlight = totals.sync;
    run.handles = totals;
    return run;
  });
}
