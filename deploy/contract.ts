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
}

export const TARGET_LABEL = "target";

export const AIO_STATES = ["HANDED_OUT", "DEFINED", "STAGED", "SUBMITTED", "COMPLETED_IO", "COMPLETED_SHARED", "COMPLETED_LOCAL"] as const;
export const AIO_OPERATIONS = ["readv", "writev"] as const;
export const IO_METHODS = ["sync", "worker", "io_uring"] as const;
export const NUMERIC_SETTINGS = ["io_workers", "io_max_concurrency", "io_combine_limit", "io_max_combine_limit", "effective_io_concurrency", "maintenance_io_concurrency", "shared_buffers"] as const;
/** The io settings inflight reads (lib/window/settings.ts IO_SETTINGS): each has a pending_restart series. */
export const READ_SETTINGS = [
  "io_method",
  "io_workers",
  "io_max_concurrency",
  "io_combine_limit",
  "io_max_combine_limit",
  "effective_io_concurrency",
  "maintenance_io_concurrency",
  "track_io_timing",
  "shared_buffers",
  "data_checksums",
  "io_workers_idle_timeout",
  "max_parallel_workers_per_gather",
  "shared_preload_libraries",
  "block_size",
] as const;
export const FINDING_RULES = [
  "reads_not_bottleneck",
  "sync_reads",
  "workers_queue",
  "readahead_depth",
  "io_method_sync",
  "small_reads",
  "cached",
  "restart_applied",
  "restart_pending",
  "combine_clamped",
  "too_short",
  "io_uring_submit",
] as const;
export const COLLECTION_ASPECTS = ["sampling", "aios", "stat_io", "settings", "statements", "relations"] as const;
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
/** inflight's own statements (lib/collector/statements.ts STATEMENT_NAMES): the `statement` label of the cost counter. */
export const OWN_STATEMENTS = ["capabilities", "activity_aios", "activity", "stat_io", "stat_io_op_bytes", "settings", "server_info", "relation", "databases", "statements", "statements_legacy", "statement_texts"] as const;

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
  { name: "inflight_aio_samples_total", type: "counter", help: "Samples in which pg_aios was read (the denominator for handle means)", labels: {} },
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
  { name: "inflight_aio_handles_sampled_total", type: "counter", help: "pg_aios handles summed over aio samples, by kind (async: f_sync = false)", labels: { kind: fixed(["async", "sync"]) } },
  { name: "inflight_aio_bytes_sampled_total", type: "counter", help: "Bytes of async handles summed over aio samples", labels: {} },
  { name: "inflight_io_workers_busy_sampled_total", type: "counter", help: "Busy io workers summed over samples", labels: {} },
  { name: "inflight_io_workers_alive_sampled_total", type: "counter", help: "Alive io workers summed over samples", labels: {} },
  { name: "inflight_read_wait_samples_total", type: "counter", help: "Samples in which at least one backend waited on a read of that mode", labels: { mode: fixed(["async", "sync"]) } },
  { name: "inflight_aio_handles", type: "gauge", help: "Async handles at the last aio sample, by state and operation", labels: { state: fixed(AIO_STATES), operation: fixed(AIO_OPERATIONS) } },
  { name: "inflight_io_workers", type: "gauge", help: "io worker processes: configured, alive, busy", labels: { kind: fixed(["configured", "alive", "busy"]) } },
  {
    name: "inflight_io_method",
    type: "gauge",
    help: "1 for the io_method in force, 0 for the others this build offers",
    labels: { method: { values: IO_METHODS, note: "io_uring only where the build offers it" } },
    alwaysEmitted: [{ method: "sync" }, { method: "worker" }],
  },
  { name: "inflight_setting", type: "gauge", help: "Numeric io settings in force (sizes in bytes)", labels: { name: fixed(NUMERIC_SETTINGS) } },
  { name: "inflight_pending_restart", type: "gauge", help: "1 for an io setting changed, waiting for a restart", labels: { name: fixed(READ_SETTINGS) } },
  { name: "inflight_restarts_total", type: "counter", help: "Server restarts seen", labels: {} },
  { name: "inflight_io_reads_total", type: "counter", help: "pg_stat_io reads", labels: statIoLabels, alwaysEmitted: [{ backend_type: "client backend", object: "relation", context: "normal" }] },
  { name: "inflight_io_read_bytes_total", type: "counter", help: "pg_stat_io read_bytes", labels: statIoLabels, alwaysEmitted: [{ backend_type: "client backend", object: "relation", context: "normal" }] },
  { name: "inflight_io_read_seconds_total", type: "counter", help: "pg_stat_io read_time in seconds (0 unless track_io_timing = on)", labels: statIoLabels, alwaysEmitted: [{ backend_type: "client backend", object: "relation", context: "normal" }] },
  { name: "inflight_finding", type: "gauge", help: "1 while a finding holds", labels: { rule: fixed(FINDING_RULES) } },
  { name: "inflight_collection_ok", type: "gauge", help: "1 while an aspect is collected without error", labels: { aspect: fixed(COLLECTION_ASPECTS) } },
  {
    name: "inflight_target_cost_seconds_total",
    type: "counter",
    help: "Server time inflight's own statements spent on the target",
    labels: { statement: { values: OWN_STATEMENTS, note: "inflight's statement names; only those it has run" } },
    // The sampling statement (activity_aios on 18 with pg_monitor, activity
    // otherwise) runs from the start: one series is enough for the panels.
    alwaysEmitted: [{ statement: "activity_aios" }],
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

/** Every label set a metric must carry for one target from the first scrape. */
export function requiredSeries(spec: MetricSpec, target: string): Record<string, string>[] {
  if (spec.alwaysEmitted) return spec.alwaysEmitted.map((l) => ({ [TARGET_LABEL]: target, ...l }));
  let sets: Record<string, string>[] = [{ [TARGET_LABEL]: target }];
  for (const [label, l] of Object.entries(spec.labels)) {
    if (!l.values) throw new Error(`${spec.name}: open label ${label} needs alwaysEmitted`);
    sets = sets.flatMap((s) => l.values!.map((v) => ({ ...s, [label]: v })));
  }
  return sets;
}
