// The payloads of a target's window: the JSON snapshot and the SSE events.
// Built on the server (lib/server/payloads), parsed again in the browser with
// the same schemas. Other tools rely on these shapes: extend, do not break.
import { z } from "zod";
import { FindingsPayload } from "./findings";
import { StatementStat, QueryRun } from "./runs";
import { Check, Reload, Restart, Settings } from "./settings";
import { TargetInfo } from "./target";
import { IoSample, Tick } from "./tick";

/** A time the target could not be sampled: [from, to|null] in ms. */
export const Outage = z.object({ from: z.number(), to: z.number().nullable(), error: z.string() });
export type Outage = z.infer<typeof Outage>;

/** `reloads`: those that changed a setting in force, oldest first (absent from a payload made before they were kept: none). */
export const SettingsPayload = z.object({
  settings: Settings,
  checks: z.array(Check),
  restarts: z.array(Restart),
  reloads: z.array(Reload).default([]),
});
export type SettingsPayload = z.infer<typeof SettingsPayload>;

export const QueriesPayload = z.object({
  /** ms (server clock) of the moment these runs stand at: the findings of
   * the same moment carry the same asOf, and the page shows the two together */
  asOf: z.number(),
  queries: z.array(QueryRun),
  statements: z.array(StatementStat),
  /** pg_stat_statements over the window: why it may be empty */
  statementsNote: z.string().nullable(),
});
export type QueriesPayload = z.infer<typeof QueriesPayload>;

/**
 * What changed in the queries state since the last queries or
 * queries-changes event of the same stream: runs whole, and the rest only
 * when it changed. A new viewer gets the whole state (`queries`) first.
 */
export const QueriesChanges = z.object({
  /** as in QueriesPayload: the findings of this moment carry the same asOf */
  asOf: z.number(),
  /** the asOf of the state these changes apply to */
  base: z.number(),
  /** runs new or changed (figures, or ended) since then */
  runs: z.array(QueryRun),
  /** the ids of the list in order, when they changed (a run added, ended or evicted) */
  order: z.array(z.string()).optional(),
  statements: z.array(StatementStat).optional(),
  statementsNote: z.string().nullable().optional(),
});
export type QueriesChanges = z.infer<typeof QueriesChanges>;

export const OutagesPayload = z.object({ outages: z.array(Outage) });
export type OutagesPayload = z.infer<typeof OutagesPayload>;

export const WindowSnapshot = z.object({
  target: TargetInfo,
  /** the newest seq in the window (ticks and io share one sequence): open
   * the stream with ?since= this to continue with no gap */
  lastSeq: z.number(),
  ticks: z.array(Tick),
  io: z.array(IoSample),
  ...SettingsPayload.shape,
  ...QueriesPayload.shape,
  ...OutagesPayload.shape,
  ...FindingsPayload.shape,
});
export type WindowSnapshot = z.infer<typeof WindowSnapshot>;

/** Payloads of the SSE stream, one schema per event name. */
export const StreamEvents = {
  /** replayable: id = seq */
  tick: Tick,
  io: IoSample,
  /** not replayable: the latest state, sent on connect and on change */
  target: TargetInfo,
  settings: SettingsPayload,
  queries: QueriesPayload,
  /** not state: the changes to the last queries event (see QueriesChanges) */
  "queries-changes": QueriesChanges,
  outages: OutagesPayload,
  findings: FindingsPayload,
  /** the client's Last-Event-ID is from an earlier inflight process: refetch */
  reset: z.object({ lastSeq: z.number() }),
} as const;
export type StreamEventName = keyof typeof StreamEvents;
export type StreamPayload<E extends StreamEventName> = z.infer<(typeof StreamEvents)[E]>;
/** The events that carry the latest state of something (sent to a new viewer first). */
export const STATE_EVENTS = ["target", "settings", "queries", "outages", "findings"] as const satisfies readonly StreamEventName[];
export type StateEventName = (typeof STATE_EVENTS)[number];
