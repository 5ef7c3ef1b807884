// A target at a glance: what inflight is connected to, how sampling goes,
// and the health of each collection aspect.
import { z } from "zod";
import { ASPECT_STATES, ASPECTS, TARGET_STATUSES } from "./enums";
import { SamplesStatus } from "./history";

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

export const AspectHealth = z.object({
  aspect: z.enum(ASPECTS),
  state: z.enum(ASPECT_STATES),
  /** ms since the epoch when this state was entered */
  since: z.number(),
  /** the last error while failing; null once a read works again */
  lastError: z.string().nullable(),
  /** why it is unavailable, or what the state means here */
  note: z.string().nullable(),
  /** ms of the last good read */
  lastOkAt: z.number().nullable(),
});
export type AspectHealth = z.infer<typeof AspectHealth>;

/** What one of inflight's statements costs the target. */
export const StatementCost = z.object({
  /** the file in sql/, without .sql */
  statement: z.string(),
  /** server ms a call */
  msPerCall: z.number(),
  callsPerSecond: z.number(),
  msPerSecond: z.number(),
  /** exact (inflight's own pg_stat_statements entry) or estimated (round trip less a ping's) */
  source: z.enum(["pg_stat_statements", "round trip"]),
});
export type StatementCost = z.infer<typeof StatementCost>;

/** What watching costs this server, against the budget (INFLIGHT_BUDGET). */
export const WatchCost = z.object({
  budgetMsPerSecond: z.number(),
  /** server time of all of inflight's statements, ms per second, over the last 10 s */
  msPerSecond: z.number(),
  /** the seconds msPerSecond is over: 10, less right after inflight started */
  spanS: z.number(),
  statements: z.array(StatementCost),
  aios: z.object({
    /** server ms one read of pg_aios costs here; null before the first */
    msPerRead: z.number().nullable(),
    /** median interval between pg_aios reads in the sampling slots while a backend was active, over the last 10 s; null without one */
    intervalMs: z.number().nullable(),
    /** pg_aios reads the budget put off in the last 10 s (a backend was active) */
    skipped: z.number(),
  }),
  /** why a cadence is slower than asked, or why it is over the budget, in plain words; null when none is */
  note: z.string().nullable(),
});
export type WatchCost = z.infer<typeof WatchCost>;

/** Where the wait events come from: inflight's polls of pg_stat_activity, or pg_wait_sampling's profile (issue 44). */
export const WaitSamplerInfo = z.object({
  source: z.enum(["pg_stat_activity", "pg_wait_sampling"]),
  /** ms between two samples of a backend's wait event */
  periodMs: z.number(),
  /** pg_wait_sampling's profile is read this often (ms); null for the polls */
  readEveryMs: z.number().nullable(),
  /** "wait events from pg_wait_sampling, every 10 ms" */
  text: z.string(),
  /** why pg_wait_sampling is not used where it is present, and what to run; null: nothing to say */
  note: z.string().nullable(),
});
export type WaitSamplerInfo = z.infer<typeof WaitSamplerInfo>;

export const TargetInfo = z.object({
  id: z.string(),
  name: z.string(),
  status: TargetStatus,
  /** ms since the epoch when status last changed */
  statusSince: z.number(),
  /** why the target is down or not reachable yet; null while up */
  lastError: z.string().nullable(),
  serverVersion: z.string().nullable(),
  serverVersionNum: z.number().nullable(),
  ioMethod: z.string().nullable(),
  demo: z.boolean(),
  /** the sampling interval in force, ms */
  sampleMs: z.number(),
  /** samples per second actually achieved over the last 10 s */
  achievedHz: z.number(),
  /** samples taken in their slots, since inflight started watching */
  samples: z.number(),
  /** slots whose sample was not taken (the last one still running, no session, the event loop held up) */
  missed: z.number(),
  /** pg_postmaster_start_time() in ms */
  postmasterStart: z.number().nullable(),
  capabilities: Capabilities.nullable(),
  /** window length in ms */
  windowMs: z.number(),
  viewers: z.number(),
  /** one entry per collection aspect, in ASPECTS order */
  aspects: z.array(AspectHealth),
  cost: WatchCost,
  /** absent from payloads stored before it */
  waitSampler: WaitSamplerInfo.optional(),
  /** the history's samples file (issue 22): kept or why not; absent where none is kept (tests) */
  history: SamplesStatus.optional(),
});
export type TargetInfo = z.infer<typeof TargetInfo>;
