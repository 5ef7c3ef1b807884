// The /metrics contract that deploy/ (Prometheus rules, alerts, the Grafana
// dashboard) is written against: every metric name, its type, its labels and,
// where the set is fixed, the label values. deploy/ may use no other name
// (test/deploy-contract.int.test.ts checks), and the app can test its
// /metrics output against this list.
//
// "Fixed" label values are emitted for every target, zeros included, so a
// series exists before anything happens (a rate() of it is 0, not no data).
// "Open" labels take values from the server (target ids, wait events,
// pg_stat_io's rows); no label carries a pid or query text.

export type MetricType = "counter" | "gauge";

export interface LabelSpec {
  /** The values the label takes; null: an open set (see `note`). */
  values: readonly string[] | null;
  note?: string;
}

export interface MetricSpec {
  name: string;
  type: MetricType;
  help: string;
  /** Every label besides `target`, in order. `target` is on every metric. */
  labels: Readonly<Record<string, LabelSpec>>;
  /**
   * Label sets that must be emitted for every target from the first scrape
   * (zeros included) for the rules and panels to return data. Absent: every
   * combination of the fixed label values.
   */
  alwaysEmitted?: readonly Readonly<Record<string, string>>[];
  /** Emitted only for a target whose io workers are 19's self-sizing pool (none on 18, whose io_workers has no maximum). */
  poolOnly?: true;
}

export const TARGET_LABEL = "target";

import { AIO_OPERATIONS, AIO_STATES, ASPECTS, IO_METHODS } from "../lib/schemas/enums";
import { FINDING_RULES } from "../lib/schemas/findings";
import { QUERY_NAMES } from "../lib/server/pg/queries";
import { COMMON_NUMERIC_SETTINGS, COMMON_SETTINGS, IO_SETTINGS, NUMERIC_SETTINGS } from "../lib/model/window/settings";

// The enumerations are the app's own (one place each): deploy/ is written against them.
export { AIO_OPERATIONS, AIO_STATES, IO_METHODS } from "../lib/schemas/enums";
export { FINDING_RULES } from "../lib/schemas/findings";
/** The io settings inflight reads: each has a pending_restart series. */
export { IO_SETTINGS as READ_SETTINGS, NUMERIC_SETTINGS } from "../lib/model/window/settings";
export { ASPECTS as COLLECTION_ASPECTS } from "../lib/schemas/enums";
/** The wait events deploy/ names (the label set itself is open: pg_wait_events). */
export const READ_WAITS = {
  cpu: { wait_event_type: "CPU", wait_event: "CPU" },
  asyncRead: { wait_event_type: "IO", wait_event: "AioIoCompletion" },
  syncRead: { wait_event_type: "IO", wait_event: "DataFileRead" },
  workerQueue: { wait_event_type: "LWLock", wait_event: "AioWorkerSubmissionQueue" },
} as const;
/** pg_stat_io's row keys in PostgreSQL 18 (open in principle: a later release may add values). */
export const STAT_IO_BACKEND_TYPES = [
  "autovacuum launcher",
  "autovacuum worker",
  "background worker",
  "background writer",
  "checkpointer",
  "client backend",
  "io worker",
  "slotsync worker",
  "standalone backend",
  "startup",
  "walreceiver",
  "walsender",
  "walsummarizer",
  "walwriter",
] as const;
export const STAT_IO_OBJECTS = ["relation", "temp relation", "wal"] as const;
export const STAT_IO_CONTEXTS = ["normal", "bulkread", "bulkwrite", "vacuum", "init"] as const;
/** inflight's own statements (sql/*.sql, lib/server/pg/queries.ts): the `statement` label of the cost counter. */
export { QUERY_NAMES as OWN_STATEMENTS } from "../lib/server/pg/queries";

const open = (note: string): LabelSpec => ({ values: null, note });
const fixed = (values: readonly string[]): LabelSpec => ({ values });
const statIoLabels = {
  backend_type: { values: null, note: `pg_stat_io.backend_type (18: ${STAT_IO_BACKEND_TYPES.length} values)` },
  object: { values: null, note: `pg_stat_io.object (18: ${STAT_IO_OBJECTS.join(", ")})` },
  context: { values: null, note: `pg_stat_io.context (18: ${STAT_IO_CONTEXTS.join(", ")})` },
} satisfies Record<string, LabelSpec>;

export const CONTRACT: readonly MetricSpec[] = [
  { name: "inflight_target_up", type: "gauge", help: "1 when inflight is connected to the target, 0 when not", labels: {} },
  { name: "inflight_samples_total", type: "counter", help: "Activity samples taken (the ASH denominator)", labels: {} },
  { name: "inflight_samples_missed_total", type: "counter", help: "Samples due but not taken", labels: {} },
  {
    name: "inflight_samples_extra_total",
    type: "counter",
    help: "Samples taken between the slots (a burst when a statement starts; not in inflight_samples_total)",
    labels: {},
  },
  {
    name: "inflight_target_budget_seconds_per_second",
    type: "gauge",
    help: "The server time watching may cost the target per second (INFLIGHT_BUDGET)",
    labels: {},
  },
  { name: "inflight_aio_sync_handles", type: "gauge", help: "Synchronous handles (f_sync = true) at the last aio sample", labels: {} },
  { name: "inflight_aio_bytes", type: "gauge", help: "Bytes of the async handles at the last aio sample", labels: {} },
  {
    name: "inflight_aio_samples_total",
    type: "counter",
    help: "Samples in which pg_aios was read (the denominator for handle means)",
    labels: {},
  },
  {
    name: "inflight_backend_wait_samples_total",
    type: "counter",
    help: "Active backends (client backends, parallel workers, autovacuum, background workers) by wait event, summed over samples; on CPU is CPU/CPU",
    labels: {
      wait_event_type: open("pg_wait_events.type, or CPU"),
      wait_event: open("pg_wait_events.name, or CPU"),
    },
    alwaysEmitted: Object.values(READ_WAITS),
  },
  {
    name: "inflight_aio_handles_sampled_total",
    type: "counter",
    help: "pg_aios handles summed over aio samples, by kind (async: f_sync = false)",
    labels: { kind: fixed(["async", "sync"]) },
  },
  { name: "inflight_aio_bytes_sampled_total", type: "counter", help: "Bytes of async handles summed over aio samples", labels: {} },
  { name: "inflight_io_workers_busy_sampled_total", type: "counter", help: "Busy io workers summed over samples", labels: {} },
  { name: "inflight_io_workers_alive_sampled_total", type: "counter", help: "Alive io workers summed over samples", labels: {} },
  {
    name: "inflight_read_wait_samples_total",
    type: "counter",
    help: "Samples in which at least one backend waited on a read of that mode",
    labels: { mode: fixed(["async", "sync"]) },
  },
  {
    name: "inflight_io_workers_queue_samples_total",
    type: "counter",
    help: "Samples in which the io workers were the queue (the sizing view's test)",
    labels: {},
  },
  {
    name: "inflight_io_workers_read_wait_samples_total",
    type: "counter",
    help: "Samples in which a backend waited for the io workers, one alive (the queue samples' denominator)",
    labels: {},
  },
  {
    name: "inflight_io_worker_pool_at_max_samples_total",
    type: "counter",
    help: "Samples with 19's io worker pool at io_max_workers",
    labels: {},
    poolOnly: true,
  },
  {
    name: "inflight_io_worker_pool_at_max_queue_samples_total",
    type: "counter",
    help: "Samples with 19's io worker pool at io_max_workers while its workers were the queue",
    labels: {},
    poolOnly: true,
  },
  {
    name: "inflight_aio_handles",
    type: "gauge",
    help: "Async handles at the last aio sample, by state and operation",
    labels: { state: fixed(AIO_STATES), operation: fixed(AIO_OPERATIONS) },
  },
  {
    name: "inflight_io_workers",
    type: "gauge",
    help: "io worker processes: configured, max (19's io_max_workers), alive, busy",
    labels: { kind: fixed(["configured", "max", "alive", "busy"]) },
    alwaysEmitted: [{ kind: "configured" }, { kind: "alive" }, { kind: "busy" }],
  },
  {
    name: "inflight_io_method",
    type: "gauge",
    help: "1 for the io_method in force, 0 for the others this build offers",
    labels: { method: { values: IO_METHODS, note: "io_uring only where the build offers it" } },
    alwaysEmitted: [{ method: "sync" }, { method: "worker" }],
  },
  // The server's own names: io_workers on 18, io_min_workers .. io_worker_launch_interval on 19; the rest on both, always.
  {
    name: "inflight_setting",
    type: "gauge",
    help: "Numeric io settings in force (sizes in bytes)",
    labels: { name: open(`the server's: ${NUMERIC_SETTINGS.join(", ")}`) },
    alwaysEmitted: COMMON_NUMERIC_SETTINGS.map((name) => ({ name })),
  },
  {
    name: "inflight_pending_restart",
    type: "gauge",
    help: "1 for an io setting changed, waiting for a restart",
    labels: { name: open(`the server's: ${IO_SETTINGS.join(", ")}, and any other io_* it has`) },
    alwaysEmitted: COMMON_SETTINGS.map((name) => ({ name })),
  },
  { name: "inflight_restarts_total", type: "counter", help: "Server restarts seen", labels: {} },
  {
    name: "inflight_io_reads_total",
    type: "counter",
    help: "pg_stat_io reads",
    labels: statIoLabels,
    alwaysEmitted: [{ backend_type: "client backend", object: "relation", context: "normal" }],
  },
  {
    name: "inflight_io_read_bytes_total",
    type: "counter",
    help: "pg_stat_io read_bytes",
    labels: statIoLabels,
    alwaysEmitted: [{ backend_type: "client backend", object: "relation", context: "normal" }],
  },
  {
    name: "inflight_io_read_seconds_total",
    type: "counter",
    help: "pg_stat_io read_time in seconds (0 unless track_io_timing = on)",
    labels: statIoLabels,
    alwaysEmitted: [{ backend_type: "client backend", object: "relation", context: "normal" }],
  },
  { name: "inflight_finding", type: "gauge", help: "1 while a finding holds", labels: { rule: fixed(FINDING_RULES) } },
  {
    name: "inflight_collection_ok",
    type: "gauge",
    help: "1 while an aspect is collected without error",
    labels: { aspect: fixed(ASPECTS) },
  },
  {
    name: "inflight_target_cost_seconds_total",
    type: "counter",
    help: "Server time inflight's own statements spent on the target",
    labels: { statement: { values: QUERY_NAMES, note: "inflight's statement names; only those it has run" } },
    // The wait-event sample (activity.sql) runs from the start: one series is enough for the panels.
    alwaysEmitted: [{ statement: "activity" }],
  },
  { name: "inflight_viewers", type: "gauge", help: "Live viewers of the target", labels: {} },
  { name: "inflight_sample_interval_seconds", type: "gauge", help: "The sampling interval in force", labels: {} },
];

/** Series Prometheus makes itself for every scrape (may be used beside the contract). */
export const PROMETHEUS_SERIES = ["up"] as const;

export const CONTRACT_NAMES: ReadonlySet<string> = new Set(CONTRACT.map((m) => m.name));

export function metricSpec(name: string): MetricSpec | undefined {
  return CONTRACT.find((m) => m.name === name);
}

/** Every label set a metric must carry for one target from the first scrape; `pool`: the target runs 19's pool. */
export function requiredSeries(spec: MetricSpec, target: string, { pool = false } = {}): Record<string, string>[] {
  if (spec.poolOnly && !pool) return [];
  if (spec.alwaysEmitted) return spec.alwaysEmitted.map((l) => ({ [TARGET_LABEL]: target, ...l }));
  let sets: Record<string, string>[] = [{ [TARGET_LABEL]: target }];
  for (const [label, l] of Object.entries(spec.labels)) {
    if (!l.values) throw new Error(`${spec.name}: open label ${label} needs alwaysEmitted`);
    sets = sets.flatMap((s) => l.values!.map((v) => ({ ...s, [label]: v })));
  }
  return sets;
}
