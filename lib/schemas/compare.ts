// Before and after a restart, from the history on disk: the wire contract
// of GET /api/targets/{id}/compare and of the fleet row's restart line.
import { z } from "zod";
import { COMPARE_VERDICTS } from "./enums";
import { Restart, SettingChange } from "./settings";

/** One side of one statement. */
export const CompareSide = z.object({
  calls: z.number(),
  /** mean execution time, ms */
  meanMs: z.number(),
  /** standard deviation of single calls, ms; null with one call */
  sdMs: z.number().nullable(),
  /** read time over execution time; null when unknown (track_io_timing off) */
  readShare: z.number().nullable(),
  blocksReadPerCall: z.number(),
});
export type CompareSide = z.infer<typeof CompareSide>;

export const CompareVerdict = z.object({
  kind: z.enum(COMPARE_VERDICTS),
  /** (after - before) / before of the mean; null when too few calls */
  change: z.number().nullable(),
  /** "faster by 34% (12 vs 15 calls; outside the spread)" */
  text: z.string(),
});
export type CompareVerdict = z.infer<typeof CompareVerdict>;

export const CompareRow = z.object({
  queryId: z.string(),
  query: z.string(),
  before: CompareSide,
  after: CompareSide,
  verdict: CompareVerdict,
  /** the time at stake: calls x mean of the larger side, ms (the rows are ranked by it) */
  stakeMs: z.number(),
  /** transaction control, SET and the like, or a monitoring poll: folded at the bottom */
  housekeeping: z.boolean(),
});
export type CompareRow = z.infer<typeof CompareRow>;

/** A side's span, ms (inflight's clock); `to` is never later than now. */
export const CompareSpan = z.object({ from: z.number(), to: z.number() });

export const VerdictCounts = z.object({ slower: z.number(), faster: z.number(), same: z.number(), too_few: z.number() });

export const CompareResponse = z.object({
  target: z.string(),
  /** the moment compared around (ms); null when there is no restart to compare around */
  at: z.number().nullable(),
  /** the restart at that moment, with the settings it changed; null for a moment that is not a restart */
  restart: Restart.nullable(),
  /** the settings that changed at `at` (the restart's, or those in force on either side) */
  changes: z.array(SettingChange),
  before: CompareSpan.nullable(),
  after: CompareSpan.nullable(),
  /** statements seen on both sides */
  rows: z.array(CompareRow),
  counts: VerdictCounts,
  /** statements seen on one side only */
  onlyBefore: z.number(),
  onlyAfter: z.number(),
  /** the history compared from: its id, and how its server is told apart (by system identifier, by address only,
   * or, for a history kept from before inflight told servers apart, by the target's name); null when none is known yet */
  history: z.object({ id: z.string(), identifiedBy: z.enum(["system_identifier", "address", "name"]) }).nullable(),
  /** how long the history keeps, ms */
  retentionMs: z.number(),
  /** what the reader should know (no restart yet, the after side still filling) */
  note: z.string().nullable(),
});
export type CompareResponse = z.infer<typeof CompareResponse>;

/** The fleet row's line: "restart 2 h ago: io_method worker -> sync; 3 statements slower". */
export const RestartSummary = z.object({
  at: z.number(),
  changes: z.array(SettingChange),
  /** verdict counts of the default comparison; null without history */
  counts: VerdictCounts.nullable(),
});
export type RestartSummary = z.infer<typeof RestartSummary>;
