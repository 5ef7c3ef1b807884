// The history on disk (issue 22): one row a second per target, the
// query runs as they ended and the findings as they held, opened by time.
// The wire contract of GET /api/targets/{id}/history; the page turns it
// back into the frame its charts draw.
import { z } from "zod";
import { Finding } from "./findings";
import { QueryRun } from "./runs";
import { Restart } from "./settings";
import { Tick } from "./tick";

/**
 * One second's counts over all its samples (burst samples only in launched/exited): what the
 * sizing view sums, unbiased by which tick was kept.
 */
export const SecondLoad = z.object({
  samples: z.number(),
  /** samples with async reads in flight or a backend waiting on them (IO:AioIoCompletion) */
  reading: z.number(),
  /** samples in which a backend waited on its reads (IO:AioIoCompletion or IO:DataFileRead) */
  waiting: z.number(),
  /** samples in which the io workers were the queue (workersFull) */
  full: z.number(),
  /** 19: samples with the pool at io_max_workers */
  atMax: z.number(),
  fullAtMax: z.number(),
  /** 19: samples with the pool at io_min_workers (or below) and none busy */
  idleAtMin: z.number(),
  launched: z.number(),
  exited: z.number(),
  maxAlive: z.number(),
  maxBusy: z.number(),
  /** the most backends waiting on their async reads at once in a full sample */
  peakWaiting: z.number(),
  /** the most handles SUBMITTED (queued for an io worker or executing) in a full sample */
  peakSubmitted: z.number(),
});
export type SecondLoad = z.infer<typeof SecondLoad>;

/** One second of a target: the tick kept for it (the one with the most reads in flight). */
export const HistoryTick = Tick.omit({ seq: true }).extend({
  /** the second's counts over all its samples; absent from rows kept before issue 41 */
  load: SecondLoad.optional(),
  /** pg_stat_io deltas that arrived in this second (summed); null when none did */
  read: z.object({ intervalMs: z.number(), reads: z.number(), readBytes: z.number(), readTime: z.number(), hits: z.number() }).nullable(),
  /** the live read estimate (the running scans' blocks covered per second x block_size); null without a scan to tell */
  rate: z.object({ bytesPerSec: z.number(), scans: z.number() }).nullable(),
});
export type HistoryTick = z.infer<typeof HistoryTick>;

/** A finding over the span it held: from `from` to `to` (null: still holding when last seen at `seen`). */
export const HistoryFinding = Finding.omit({ since: true }).extend({
  /** kept from when it was written: findings kept before glances have none */
  glance: Finding.shape.glance.optional(),
  from: z.number(),
  to: z.number().nullable(),
  seen: z.number(),
});
export type HistoryFinding = z.infer<typeof HistoryFinding>;

/** Whether the picture is being kept, why not, and the rows a slow or refusing disk cost. */
export const SamplesStatus = z.object({
  on: z.boolean(),
  /** why rows are not being kept (the file cannot be written, ...); null while they are */
  reason: z.string().nullable(),
  /** rows dropped since inflight started (a slow, full or refusing disk) */
  dropped: z.number(),
});
export type SamplesStatus = z.infer<typeof SamplesStatus>;

export const HistoryResponse = z.object({
  target: z.string(),
  from: z.number(),
  to: z.number(),
  /** oldest time the file still holds rows of (retention, the size cap); null when it holds none */
  keptFrom: z.number().nullable(),
  /** how long the picture is kept, ms (INFLIGHT_HISTORY) */
  retentionMs: z.number(),
  ticks: z.array(HistoryTick),
  /** the runs that ran in the range; endedAt null: last seen at lastSeen (inflight stopped first) */
  runs: z.array(QueryRun),
  findings: z.array(HistoryFinding),
  /** the server's restarts in the range (from the history) */
  restarts: z.array(Restart),
  status: SamplesStatus,
  /** what the reader should know: the range is older than what is kept, ... */
  note: z.string().nullable(),
});
export type HistoryResponse = z.infer<typeof HistoryResponse>;
