// Wire contracts of a target's window: built on the server, parsed again in
// the browser with the same schemas. Other tools rely on these shapes:
// extend them, do not break them.
import { z } from "zod";

export const TARGET_STATUSES = ["starting", "up", "down"] as const;
export const TargetStatus = z.enum(TARGET_STATUSES);
export type TargetStatus = z.infer<typeof TargetStatus>;

/** What the connected role may read, decided from the catalog at connect. */
export const Capabilities = z.object({
  /** pg_aios exists (18+) */
  aios: z.boolean(),
  /** pg_aios exists but this role may not read it */
  aiosDenied: z.boolean(),
  /** pg_stat_io exists (16+) */
  statIo: z.boolean(),
  /** pg_stat_statements is installed in the connected database: its version */
  statStatements: z.string().nullable(),
  /** the role can read other roles' query text (pg_read_all_stats) */
  readAllStats: z.boolean(),
  /** the role inflight connects as (for the GRANT it may need) */
  role: z.string(),
});
export type Capabilities = z.infer<typeof Capabilities>;

export const TargetInfo = z.object({
  id: z.string(),
  name: z.string(),
  status: TargetStatus,
  /** ms since the epoch when status last changed */
  statusSince: z.number(),
  lastError: z.string().nullable(),
  serverVersion: z.string().nullable(),
  serverVersionNum: z.number().nullable(),
  ioMethod: z.string().nullable(),
  demo: z.boolean(),
  /** the sampling interval in force, ms */
  sampleMs: z.number(),
  /** samples per second actually achieved over the last 10 s */
  achievedHz: z.number(),
  samples: z.number(),
  missed: z.number(),
  /** pg_postmaster_start_time() in ms */
  postmasterStart: z.number().nullable(),
  capabilities: Capabilities.nullable(),
  /** window length in ms */
  windowMs: z.number(),
  viewers: z.number(),
});
export type TargetInfo = z.infer<typeof TargetInfo>;

/** Per-tick state of one running query run, as sampled. */
export const RUN_STATES = ["aio", "read", "io", "cpu", "other"] as const;
export const RunState = z.enum(RUN_STATES);
export type RunState = z.infer<typeof RunState>;

export const RunSample = z.object({
  /** run id: `${pid}:${queryStartMs}` of the leader */
  id: z.string(),
  /** aio: waiting on AioIoCompletion; read: waiting on a synchronous read
   * (DataFileRead); io: another IO wait; cpu: no wait event; other: a
   * non-IO wait (lock, LWLock, client...) */
  state: RunState,
  /** async handles (f_sync = false) in flight, workers folded in */
  inFlight: z.number(),
  /** synchronous handles (f_sync = true) */
  syncInFlight: z.number(),
});
export type RunSample = z.infer<typeof RunSample>;

export const Tick = z.object({
  seq: z.number(),
  /** ms since the epoch, when the sample was taken */
  t: z.number(),
  aio: z.object({
    /** async handles only (f_sync = false) */
    inFlight: z.number(),
    /** bytes of the async handles */
    bytes: z.number(),
    byState: z.record(z.string(), z.number()),
    byOperation: z.record(z.string(), z.number()),
    /** synchronous handles (f_sync = true): reads the backend does itself */
    sync: z.number(),
    syncBytes: z.number(),
  }),
  workers: z.object({
    /** io_workers when io_method = worker, else 0; null before settings are known */
    configured: z.number().nullable(),
    alive: z.number(),
    busy: z.number(),
  }),
  /** wait events of active backends: "IO:AioIoCompletion", "CPU", ... */
  waits: z.record(z.string(), z.number()),
  /** active client backends (parallel workers not counted) */
  active: z.number(),
  runs: z.array(RunSample),
});
export type Tick = z.infer<typeof Tick>;

export const IoRow = z.object({
  backendType: z.string(),
  object: z.string(),
  context: z.string(),
  reads: z.number(),
  readBytes: z.number(),
  /** ms; 0 unless track_io_timing = on */
  readTime: z.number(),
  hits: z.number(),
  writes: z.number(),
  writeBytes: z.number(),
  extends: z.number(),
  evictions: z.number(),
});
export type IoRow = z.infer<typeof IoRow>;

/** pg_stat_io deltas over one interval (non-zero rows only). */
export const IoSample = z.object({
  seq: z.number(),
  t: z.number(),
  intervalMs: z.number(),
  rows: z.array(IoRow),
  /** sums over all rows */
  totals: z.object({
    reads: z.number(),
    readBytes: z.number(),
    readTime: z.number(),
    hits: z.number(),
  }),
});
export type IoSample = z.infer<typeof IoSample>;

export const Setting = z.object({
  setting: z.string(),
  unit: z.string().nullable(),
  source: z.string(),
  pendingRestart: z.boolean(),
  /** the value in human units, e.g. "128 kB" for io_combine_limit 16 */
  display: z.string(),
  enumvals: z.array(z.string()).nullable(),
});
export type Setting = z.infer<typeof Setting>;
export const Settings = z.record(z.string(), Setting);
export type Settings = z.infer<typeof Settings>;

export const SettingChange = z.object({
  name: z.string(),
  before: z.string().nullable(),
  after: z.string().nullable(),
});
export type SettingChange = z.infer<typeof SettingChange>;

export const Restart = z.object({
  /** ms: the new pg_postmaster_start_time() */
  at: z.number(),
  /** ms: when inflight noticed it */
  seenAt: z.number(),
  changes: z.array(SettingChange),
});
export type Restart = z.infer<typeof Restart>;

export const CHECK_STATUSES = ["pass", "warn", "fail", "unknown"] as const;
export const Check = z.object({
  id: z.string(),
  status: z.enum(CHECK_STATUSES),
  title: z.string(),
  message: z.string(),
});
export type Check = z.infer<typeof Check>;

export const VERDICTS = ["async", "sync", "cpu"] as const;
export const Verdict = z.enum(VERDICTS);
export type Verdict = z.infer<typeof Verdict>;

export const Relation = z.object({
  /** schema.table when resolvable, else `db <name> file <filenode>` */
  name: z.string(),
  filenode: z.number(),
  dbOid: z.number(),
  /** size in blocks when known */
  blocks: z.number().nullable(),
  /** how the run read it: async handles (f_sync = false), synchronous handles
   * (f_sync = true, e.g. index pages), or both; absent from older servers */
  read: z.enum(["async", "sync", "both"]).optional(),
});
export type Relation = z.infer<typeof Relation>;

export const QueryRun = z.object({
  id: z.string(),
  pid: z.number(),
  leaderPid: z.number().nullable(),
  /** pids of parallel workers seen in the run */
  workerPids: z.array(z.number()),
  query: z.string(),
  queryId: z.string().nullable(),
  database: z.string().nullable(),
  user: z.string().nullable(),
  backendType: z.string(),
  startedAt: z.number(),
  /** ms when first sampled; startedAt may be earlier */
  firstSeen: z.number(),
  lastSeen: z.number(),
  endedAt: z.number().nullable(),
  samples: z.number(),
  /** samples waiting on IO of any kind */
  ioWaitSamples: z.number(),
  /** split of the IO waits */
  aioWaitSamples: z.number(),
  readWaitSamples: z.number(),
  otherIoWaitSamples: z.number(),
  cpuSamples: z.number(),
  /** samples with async handles in flight */
  aioSamples: z.number(),
  /** samples reading synchronously (DataFileRead wait or f_sync handles) */
  syncSamples: z.number(),
  inFlightNow: z.number(),
  maxInFlight: z.number(),
  sumInFlight: z.number(),
  bytesInFlight: z.number(),
  verdict: Verdict,
  relations: z.array(Relation),
  /** sequential progress, 0..1, from async reads only: the share of the
   * relation's blocks covered since the first block seen in flight (from
   * block 0 when that is in the first 10%), so a synchronized scan that
   * begins mid-table and wraps still rises steadily */
  progress: z.number().nullable(),
  progressRelation: z.string().nullable(),
});
export type QueryRun = z.infer<typeof QueryRun>;

export const StatementStat = z.object({
  queryId: z.string(),
  query: z.string(),
  calls: z.number(),
  totalExecTime: z.number(),
  /** ms; null when track_io_timing is off (unknown, not zero) */
  readTime: z.number().nullable(),
  sharedBlksRead: z.number(),
  sharedBlksHit: z.number(),
  /** readTime / totalExecTime; null when unknown */
  readShare: z.number().nullable(),
});
export type StatementStat = z.infer<typeof StatementStat>;

export const WindowSnapshot = z.object({
  target: TargetInfo,
  /** the newest seq in the window (ticks and io share one sequence): open
   * the stream with ?since= this to continue with no gap */
  lastSeq: z.number(),
  ticks: z.array(Tick),
  io: z.array(IoSample),
  settings: Settings,
  checks: z.array(Check),
  restarts: z.array(Restart),
  queries: z.array(QueryRun),
  statements: z.array(StatementStat),
  /** pg_stat_statements over the window: why it may be empty */
  statementsNote: z.string().nullable(),
  /** outages inside the window: [from, to|null] in ms */
  outages: z.array(z.object({ from: z.number(), to: z.number().nullable(), error: z.string() })),
});
export type WindowSnapshot = z.infer<typeof WindowSnapshot>;

export const TargetsResponse = z.object({ targets: z.array(TargetInfo) });
export type TargetsResponse = z.infer<typeof TargetsResponse>;

/** Payloads of the SSE stream, one schema per event name. */
export const StreamEvents = {
  /** replayable: id = seq */
  tick: Tick,
  io: IoSample,
  /** not replayable: the latest state, sent on connect and on change */
  target: TargetInfo,
  settings: z.object({ settings: Settings, checks: z.array(Check), restarts: z.array(Restart) }),
  queries: z.object({
    queries: z.array(QueryRun),
    statements: z.array(StatementStat),
    statementsNote: z.string().nullable(),
  }),
  outages: z.object({ outages: WindowSnapshot.shape.outages }),
  /** the client's Last-Event-ID is from an earlier inflight process: refetch */
  reset: z.object({ lastSeq: z.number() }),
} as const;
export type StreamEventName = keyof typeof StreamEvents;
export type StreamPayload<E extends StreamEventName> = z.infer<(typeof StreamEvents)[E]>;

export const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** One row of the fleet page: a target at a glance. */
export const FleetEntry = z.object({
  target: TargetInfo,
  pendingRestarts: z.array(z.string()),
  /** async handles in flight at the last sample; null before the first */
  inFlightNow: z.number().nullable(),
  syncNow: z.number().nullable(),
  busiestQuery: z
    .object({ id: z.string(), query: z.string(), verdict: Verdict, startedAt: z.number(), inFlight: z.number() })
    .nullable(),
  /** max async handles in flight per second over the last minute, oldest
   * first; null where no sample was taken */
  spark: z.array(z.number().nullable()),
});
export type FleetEntry = z.infer<typeof FleetEntry>;
export const FleetResponse = z.object({ targets: z.array(FleetEntry) });
export type FleetResponse = z.infer<typeof FleetResponse>;
