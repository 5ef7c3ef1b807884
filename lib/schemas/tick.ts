// What one sample of a target holds (a tick), and pg_stat_io deltas.
import { z } from "zod";
import { RUN_STATES } from "./enums";

export const RunState = z.enum(RUN_STATES);
export type RunState = z.infer<typeof RunState>;

/** Per-tick state of one running query run, as sampled. */
export const RunSample = z.object({
  /** run id: `${pid}:${queryStartMs}` of the leader */
  id: z.string(),
  state: RunState,
  /** async handles (f_sync = false) in flight, workers folded in; null when
   * pg_aios was not read in this sample */
  inFlight: z.number().nullable(),
  /** synchronous handles (f_sync = true); null likewise */
  syncInFlight: z.number().nullable(),
});
export type RunSample = z.infer<typeof RunSample>;

export const Tick = z.object({
  seq: z.number(),
  /** ms since the epoch, when the sample was taken */
  t: z.number(),
  /** a sample between the slots (a burst when a statement starts): not in
   * the Prometheus totals, whose averages assume samples evenly spaced */
  extra: z.literal(true).optional(),
  /** pg_aios in this sample; null when it was not read (the budget spaced it
   * out, or this server or role has no pg_aios). With no backend active it is
   * not read either, and known to be empty. */
  aio: z
    .object({
      /** async handles only (f_sync = false) */
      inFlight: z.number(),
      /** bytes of the async handles */
      bytes: z.number(),
      byState: z.record(z.string(), z.number()),
      byOperation: z.record(z.string(), z.number()),
      /** "SUBMITTED/readv" -> async handles in that state doing that operation */
      byStateOperation: z.record(z.string(), z.number()),
      /** synchronous handles (f_sync = true): reads the backend does itself */
      sync: z.number(),
      syncBytes: z.number(),
    })
    .nullable(),
  workers: z.object({
    /** io_workers (18) or io_min_workers (19) when io_method = worker, else 0; null before settings are known */
    configured: z.number().nullable(),
    /** 19's pool: io_max_workers (absent on 18, whose io_workers is both bounds) */
    max: z.number().optional(),
    alive: z.number(),
    busy: z.number(),
    /** io workers seen for the first time / gone since the previous sample (absent when none) */
    launched: z.number().optional(),
    exited: z.number().optional(),
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
