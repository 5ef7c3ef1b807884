// Query runs (a backend's statement, sampled) and pg_stat_statements figures
// (exact, counted when each statement ends).
import { z } from "zod";
import { RUN_FINDERS, VERDICTS } from "./enums";

export const Verdict = z.enum(VERDICTS);
export type Verdict = z.infer<typeof Verdict>;

export const Relation = z.object({
  /** schema.table when resolvable, else `<database>: file <filenode>` */
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
  /** samples in which pg_aios was read (the others know only the wait event) */
  aioReadSamples: z.number(),
  /** samples with async handles in flight (of aioReadSamples) */
  aioSamples: z.number(),
  /** samples reading asynchronously (IO:AioIoCompletion wait or async handles
   * in flight), of all samples: syncSamples' counterpart, for the verdict */
  asyncSamples: z.number(),
  /** samples reading synchronously (DataFileRead wait or f_sync handles) */
  syncSamples: z.number(),
  inFlightNow: z.number(),
  maxInFlight: z.number(),
  sumInFlight: z.number(),
  bytesInFlight: z.number(),
  /** from the shares of asyncSamples and syncSamples, a minority named
   * beside it, never flipped by one sample (lib/model/window/verdict.ts) */
  verdict: Verdict,
  relations: z.array(Relation),
  /** sequential progress, 0..1, from the block positions of reads of
   * several blocks at once (async, or synchronous under io_method = sync):
   * the share of the relation's blocks covered since the first block seen
   * in flight (from block 0 when that is in the first 10%), so a
   * synchronized scan that begins mid-table and wraps still rises steadily */
  progress: z.number().nullable(),
  progressRelation: z.string().nullable(),
  /** blocks covered per second over the last few seconds; null without two positions */
  readBlocksPerSec: z.number().nullable(),
  /** ms left, the middle of etaRangeMs: the rate over the whole span seen
   * blended with the recent one (lib/model/window/time-left.ts); null when the
   * size is unknown or the scan has not been seen moving for a second */
  etaMs: z.number().nullable(),
  /** [low, high] ms left: wider while the rate has moved during the run,
   * narrower as the scan nears its end; null when etaMs is (and absent,
   * read as null, from runs the history stored before it) */
  etaRangeMs: z.tuple([z.number(), z.number()]).nullable().default(null),
  /** what its last few samples waited on, by wait key ("IO:AioIoCompletion", "CPU"): what it does now */
  nowWaits: z.record(z.string(), z.number()).optional(),
  /** mean size of the async handles seen (bytes); null without one */
  asyncReadBytes: z.number().nullable(),
  /** mean size of the synchronous handles seen (bytes): 8 kB for index pages */
  syncReadBytes: z.number().nullable(),
  /** set when no poll of pg_stat_activity saw it: found in pg_wait_sampling's
   * profile (ran between two polls), its length and waits from its samples,
   * its place in time to within the profile's read (lib/model/window/missed-runs.ts) */
  seenBy: z.enum(RUN_FINDERS).optional(),
});
export type QueryRun = z.infer<typeof QueryRun>;

/** One pg_stat_statements entry's deltas over the window. */
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
