// A target at a glance: what inflight is connected to, how sampling goes,
// and the health of each collection aspect.
import { z } from "zod";
import { ASPECT_STATES, ASPECTS, TARGET_STATUSES } from "./enums";

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
  samples: z.number(),
  missed: z.number(),
  /** pg_postmaster_start_time() in ms */
  postmasterStart: z.number().nullable(),
  capabilities: Capabilities.nullable(),
  /** window length in ms */
  windowMs: z.number(),
  viewers: z.number(),
  /** one entry per collection aspect, in ASPECTS order */
  aspects: z.array(AspectHealth),
});
export type TargetInfo = z.infer<typeof TargetInfo>;
