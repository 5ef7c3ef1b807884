// Wire objects for the unit tests of lib/client, with defaults that read as
// "nothing happening"; each test overrides what it is about.
import type { IoSample, RunSample, Tick } from "@/lib/schemas/tick";
import type { QueryRun } from "@/lib/schemas/runs";
import type { TargetInfo } from "@/lib/schemas/target";
import type { SampledBackend } from "@/lib/schemas/rows";
import type { WindowSnapshot } from "@/lib/schemas/window";
import { ASPECTS } from "@/lib/schemas/enums";

type TickOver = Omit<Partial<Tick>, "aio" | "workers"> & { aio?: Partial<Tick["aio"]>; workers?: Partial<Tick["workers"]> };

export function tick(seq: number, t: number, over: TickOver = {}): Tick {
  return {
    seq,
    t,
    waits: {},
    active: 0,
    runs: [],
    ...over,
    aio: { inFlight: 0, bytes: 0, byState: {}, byOperation: {}, byStateOperation: {}, sync: 0, syncBytes: 0, ...over.aio },
    workers: { configured: 3, alive: 3, busy: 0, ...over.workers },
  };
}

export function runSample(id: string, state: RunSample["state"], inFlight = 0, syncInFlight = 0): RunSample {
  return { id, state, inFlight, syncInFlight };
}

export function ioSample(seq: number, t: number, reads: number, readBytes: number, intervalMs = 1000): IoSample {
  return { seq, t, intervalMs, rows: [], totals: { reads, readBytes, readTime: 0, hits: 0 } };
}

export function target(over: Partial<TargetInfo> = {}): TargetInfo {
  return {
    id: "demo",
    name: "demo",
    status: "up",
    statusSince: 0,
    lastError: null,
    serverVersion: "18.4",
    serverVersionNum: 180004,
    ioMethod: "worker",
    demo: true,
    sampleMs: 100,
    achievedHz: 10,
    samples: 0,
    missed: 0,
    postmasterStart: 0,
    capabilities: { aios: true, aiosDenied: false, statIo: true, statStatements: "1.12", readAllStats: true, role: "inflight" },
    windowMs: 900_000,
    viewers: 1,
    aspects: ASPECTS.map((aspect) => ({ aspect, state: "ok", since: 0, lastError: null, note: null, lastOkAt: 0 })),
    cost: {
      budgetMsPerSecond: 5,
      msPerSecond: 1.2,
      spanS: 10,
      statements: [],
      aios: { msPerRead: 0.08, intervalMs: 100, skipped: 0 },
      note: null,
    },
    ...over,
  };
}

/** A client backend in a scan, as activity.sql returns it: waiting on its async reads. */
export function activeBackend(pid: number, queryStartMs: number, over: Partial<SampledBackend> = {}): SampledBackend {
  return {
    pid,
    leader_pid: null,
    backend_type: "client backend",
    state: "active",
    wait_event_type: "IO",
    wait_event: "AioIoCompletion",
    query_id: "7",
    query_start_ms: queryStartMs,
    state_change_ms: queryStartMs,
    datname: "db",
    usename: "u",
    query: "select count(*) from t",
    handles: null,
    ...over,
  };
}

export function run(over: Partial<QueryRun> = {}): QueryRun {
  return {
    id: "100:1000",
    pid: 100,
    workerPids: [],
    query: "SELECT 1",
    queryId: null,
    database: "db",
    user: "u",
    backendType: "client backend",
    startedAt: 1000,
    firstSeen: 1000,
    lastSeen: 2000,
    endedAt: null,
    samples: 10,
    ioWaitSamples: 0,
    aioWaitSamples: 0,
    readWaitSamples: 0,
    otherIoWaitSamples: 0,
    cpuSamples: 10,
    aioReadSamples: 10,
    aioSamples: 0,
    asyncSamples: 0,
    syncSamples: 0,
    inFlightNow: 0,
    maxInFlight: 0,
    sumInFlight: 0,
    bytesInFlight: 0,
    verdict: "cpu",
    relations: [],
    progress: null,
    progressRelation: null,
    readBlocksPerSec: null,
    etaMs: null,
    etaRangeMs: null,
    asyncReadBytes: null,
    syncReadBytes: null,
    ...over,
  };
}

/** lastSeq defaults to the newest seq of the ticks and io given, as the server's would be. */
export function snapshot(over: Partial<WindowSnapshot> = {}): WindowSnapshot {
  const seqs = [...(over.ticks ?? []), ...(over.io ?? [])].map((x) => x.seq);
  return {
    target: target(),
    lastSeq: Math.max(0, ...seqs),
    asOf: 0,
    ticks: [],
    io: [],
    settings: {},
    checks: [],
    restarts: [],
    reloads: [],
    queries: [],
    statements: [],
    statementsNote: null,
    outages: [],
    findings: [],
    moreRuns: 0,
    ...over,
  };
}
