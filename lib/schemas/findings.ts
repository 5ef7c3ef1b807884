// Findings: what the window means, in plain words, with the figures that
// say so. Computed on the server (lib/model/window/findings) after every tick.
import { z } from "zod";

/** Every rule a finding can come from. The per-run ones name a run; the others the server. */
export const FINDING_RULES = [
  "target_down",
  "collection_degraded",
  "workers_queue",
  "pool_growing",
  "io_method_sync",
  "readahead_depth",
  "io_uring_submit",
  "small_reads",
  "sync_reads",
  "reads_not_bottleneck",
  "async_reads",
  "cached",
  "too_short",
  "restart_pending",
  "restart_applied",
  "reload_applied",
  "combine_clamped",
  "settings_unchanged",
] as const;
export const FindingRule = z.enum(FINDING_RULES);
export type FindingRule = z.infer<typeof FindingRule>;

/** act: a lever that would help, or something broken; note: worth knowing now; info: what the figures mean. */
export const FINDING_SEVERITIES = ["act", "note", "info"] as const;
export const FindingSeverity = z.enum(FINDING_SEVERITIES);
export type FindingSeverity = z.infer<typeof FindingSeverity>;

/**
 * The finding at a glance: a few plain words per cell, the sentence (`text`)
 * being its evidence, opened on demand. A running query's: what it does now,
 * how far it has got and how long is left, the lever. The server's: the
 * cause, the lever, the running queries it holds back.
 */
export const Glance = z.object({
  /** a run: what it is doing now ("waiting on its async reads"); the server: the cause */
  now: z.string(),
  /** "raise effective_io_concurrency", "no setting will help"; null: nothing to do */
  lever: z.string().nullable(),
  /** a run: the start of its statement */
  query: z.string().optional(),
  /** a run: "40% of public.readings" */
  progress: z.string().nullable().optional(),
  /** a run: "6-9 s left" */
  left: z.string().nullable().optional(),
  /** a server-wide cause: the pids of the running queries it holds back */
  holds: z.array(z.number()).optional(),
});
export type Glance = z.infer<typeof Glance>;

export const Finding = z.object({
  /** stable while the finding holds: the rule, or `run:<run id>` for a run's */
  id: z.string(),
  rule: FindingRule,
  severity: FindingSeverity,
  /** one sentence, its figures in it */
  text: z.string(),
  glance: Glance,
  /** the figures the sentence cites, by name */
  evidence: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])),
  pid: z.number().optional(),
  /** the run the finding is about: its row and timeline on the page */
  runId: z.string().optional(),
  queryId: z.string().optional(),
  /** ms since the epoch when it first held */
  since: z.number(),
});
export type Finding = z.infer<typeof Finding>;

export const FindingsPayload = z.object({
  /** ms (server clock) of the moment the findings were computed at: the
   * queries event of that moment has the same asOf */
  asOf: z.number(),
  /** most severe first; at most MAX_RUN_FINDINGS about running queries */
  findings: z.array(Finding),
  /** running queries of at least a second beyond those with a finding */
  moreRuns: z.number(),
});
export type FindingsPayload = z.infer<typeof FindingsPayload>;
