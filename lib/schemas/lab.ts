// The labs' A/B as a button: the wire contract of GET/POST
// /api/targets/demo/lab and of its export, and what `npm run lab` prints.
import { z } from "zod";
import { IO_METHODS, LAB_LEVERS, LAB_QUERIES, LAB_STATES } from "./enums";

/** PostgreSQL 19's EXPLAIN (IO) of the scan node that read most: its read stream's prefetch distance and I/Os. */
export const LabScanIo = z.object({
  /** "Seq Scan", "Bitmap Heap Scan", "Tid Range Scan" */
  node: z.string(),
  /** "Average Prefetch Distance", "Max Prefetch Distance", "Prefetch Capacity": blocks ahead */
  prefetchAvg: z.number(),
  prefetchMax: z.number(),
  capacity: z.number(),
  /** "I/O Count", "I/O Waits" (0 when it issued none) */
  ioCount: z.number(),
  ioWaits: z.number(),
  /** "Average I/O Size" in blocks, "Average I/Os In Progress"; null when it issued none */
  ioSizeBlocks: z.number().nullable(),
  inProgress: z.number().nullable(),
});
export type LabScanIo = z.infer<typeof LabScanIo>;

/** io worker rows in pg_stat_activity, sampled while a round's sessions ran. */
export const LabWorkersSeen = z.object({ min: z.number(), max: z.number(), samples: z.number() });
export type LabWorkersSeen = z.infer<typeof LabWorkersSeen>;

/**
 * One cold round of one value: EXPLAIN (ANALYZE, BUFFERS)'s own figures.
 * With several sessions at once, each figure is the median of the sessions'.
 */
export const LabRun = z.object({
  /** 1-based */
  round: z.number(),
  /** the io_method in force (for a lever other than io_method, the one the server runs) */
  method: z.enum(IO_METHODS),
  /** the lever's value as set ("3"); absent: the io_method lab, whose value is method */
  value: z.string().optional(),
  /** EXPLAIN's Execution Time, ms (several sessions: their median) */
  executionMs: z.number(),
  /** each session's Execution Time, ms, when several ran at once */
  sessionsMs: z.array(z.number()).optional(),
  /** the lever's value as SHOW gave it in the sessions that ran (the setting in force) */
  shown: z.string().optional(),
  /** io worker rows while the sessions ran (null: not counted) */
  workers: LabWorkersSeen.nullish(),
  planningMs: z.number(),
  /** I/O Timings: shared read, ms; null when EXPLAIN gave none */
  readWaitMs: z.number().nullable(),
  /** read wait over execution time */
  readShare: z.number().nullable(),
  sharedRead: z.number(),
  sharedHit: z.number(),
  /** EXPLAIN (IO) on 19; absent or null on 18 */
  io: LabScanIo.nullish(),
  /** ms since the epoch, when the run ended */
  at: z.number(),
});
export type LabRun = z.infer<typeof LabRun>;

/** A method against the first one: "34% faster than sync (outside the spread)". */
export const LabVersus = z.object({
  /** (median - baseline median) / baseline median */
  change: z.number(),
  /** the two min-max ranges do not overlap */
  outside: z.boolean(),
  text: z.string(),
});
export type LabVersus = z.infer<typeof LabVersus>;

export const LabMethodSummary = z.object({
  method: z.enum(IO_METHODS),
  /** the lever's value; absent: the io_method lab (its value is method) */
  value: z.string().optional(),
  runs: z.number(),
  medianMs: z.number(),
  minMs: z.number(),
  maxMs: z.number(),
  /** median read wait, ms */
  readWaitMs: z.number().nullable(),
  /** median of the runs' read shares */
  readShare: z.number().nullable(),
  blocksRead: z.number(),
  /** medians of the runs' EXPLAIN (IO) figures on 19 */
  io: LabScanIo.nullish(),
  /** null for the first method, which the others are set against */
  versus: LabVersus.nullable(),
});
export type LabMethodSummary = z.infer<typeof LabMethodSummary>;

export const LabRequest = z.object({
  query: z.enum(LAB_QUERIES),
  /** the statement run, as run */
  sql: z.string(),
  /** session settings it runs with, e.g. enable_seqscan = off for the bitmap scan */
  settings: z.array(z.tuple([z.string(), z.string()])),
  methods: z.array(z.enum(IO_METHODS)),
  runs: z.number(),
  /** the setting compared; absent: io_method */
  lever: z.enum(LAB_LEVERS).optional(),
  /** its values, in the order asked for (for io_method, the methods) */
  values: z.array(z.string()).optional(),
  /** sessions running the statement at once; absent: 1 */
  concurrency: z.number().optional(),
});
export type LabRequest = z.infer<typeof LabRequest>;

export const LabState = z.object({
  state: z.enum(LAB_STATES),
  request: LabRequest.nullable(),
  startedAt: z.number().nullable(),
  finishedAt: z.number().nullable(),
  progress: z.object({ done: z.number(), total: z.number(), phase: z.string() }),
  runs: z.array(LabRun),
  summary: z.array(LabMethodSummary),
  /** one line: why it stopped */
  error: z.string().nullable(),
  /** the lever's value the server was left on (the one it started with); null before the end */
  restoredTo: z.string().nullable(),
  /** how each run was made cold */
  cold: z.string().nullable(),
  /** the runs' EXPLAIN has IO (PostgreSQL 19); null before a lab ran */
  explainIo: z.boolean().nullish(),
});
export type LabState = z.infer<typeof LabState>;

/** The JSON export: the state, and each run's EXPLAIN output as PostgreSQL gave it. */
export const LabExport = LabState.extend({
  serverVersion: z.string().nullable(),
  /** each session's EXPLAIN; value: the lever's, when it is not io_method */
  explains: z.array(
    z.object({
      round: z.number(),
      method: z.enum(IO_METHODS),
      value: z.string().optional(),
      session: z.number().optional(),
      explain: z.unknown(),
    }),
  ),
});
export type LabExport = z.infer<typeof LabExport>;

/** One value of a lever as a lab measured it: its cold runs' median and spread. */
export const LabResultRow = z.object({
  /** the setting's value, as set ("1", "3", "worker") */
  value: z.string(),
  runs: z.number(),
  medianMs: z.number(),
  minMs: z.number(),
  maxMs: z.number(),
  /** median read wait over execution time; null when EXPLAIN gave no I/O Timings */
  readShare: z.number().nullable(),
});
export type LabResultRow = z.infer<typeof LabResultRow>;

/**
 * A lab that ended, as the history keeps it (history.db, lab_results) and
 * the sizing view cites it: "measured here: io_workers 1 -> 3: 5.5 s ->
 * 4.4 s, 3 rounds each".
 */
export const LabResult = z.object({
  /** ms since the epoch, when it ended */
  at: z.number(),
  lever: z.enum(LAB_LEVERS),
  /** the rows, in the order asked for: the first is the baseline */
  rows: z.array(LabResultRow),
  /** sessions running the statement at once (1: a single scan) */
  concurrency: z.number(),
  /** rounds asked for */
  rounds: z.number(),
  query: z.enum(LAB_QUERIES),
  /** the statement as run */
  sql: z.string(),
  /** the io_method in force while a lever other than io_method was compared */
  ioMethod: z.string().nullable(),
  serverVersion: z.string().nullable(),
});
export type LabResult = z.infer<typeof LabResult>;
