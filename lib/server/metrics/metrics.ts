import "server-only";
import { Registry, collectDefaultMetrics } from "prom-client";
import { AIO_OPERATIONS, AIO_STATES, ASPECTS } from "../../schemas/enums";
import { FINDING_RULES } from "../../schemas/findings";
import { IO_SETTINGS, NUMERIC_SETTINGS, settingBytes } from "../../model/window/settings";
import { SAMPLE_DURATION_BUCKETS } from "../collector/stats";
import { getRuntime } from "../runtime/runtime";
import { family, one, onPool } from "./family";
import { sampledFamilies } from "./sample-totals";

// Every figure on /metrics for Prometheus, read from the collectors at
// scrape time: their stats, health and window. Counters accumulate every
// sample (ASH style), so rate() over any scrape interval gives sub-second
// averages. Label sets are fixed where they can be (every pg_aios state,
// every io setting), emitted with zeros. No per-pid label, no query text.
// deploy/README.md lists every family and its cardinality.

/** A setting as a plain number: sizes in bytes, counts as they are. */
function settingValue(setting: string, unit: string | null): number | null {
  const bytes = settingBytes(setting, unit);
  if (bytes !== null) return bytes;
  const n = Number(setting);
  return Number.isFinite(n) ? n : null;
}

function targetFamilies(r: Registry): void {
  family(r, "inflight_target_up", "1 when inflight is connected to the target", "gauge", (c) => [one(c, c.info().status === "up" ? 1 : 0)]);
  family(
    r,
    "inflight_collection_ok",
    "0 while a collection aspect's reads fail (1: working, not read yet, or not offered by this server or role)",
    "gauge",
    (c) => ASPECTS.map((aspect) => one(c, c.health.get(aspect).state === "failing" ? 0 : 1, { aspect })),
  );
  family(
    r,
    "inflight_finding",
    "1 while a finding of the rule holds (the page's and /api/targets/{id}/findings' list), 0 otherwise",
    "gauge",
    (c) => {
      const active = new Set(c.window.findings.findings.map((f) => f.rule));
      return FINDING_RULES.map((rule) => one(c, active.has(rule) ? 1 : 0, { rule }));
    },
  );
  family(
    r,
    "inflight_target_cost_seconds_total",
    "Server time inflight's own statements spent on the target (pg_stat_statements where readable, else round trips less a ping's)",
    "counter",
    (c) => c.cost.totals().map(({ statement, seconds }) => one(c, seconds, { statement })),
  );
  family(
    r,
    "inflight_target_budget_seconds_per_second",
    "The server time watching may cost the target per second (INFLIGHT_BUDGET)",
    "gauge",
    (c) => [one(c, c.budget.msPerSecond / 1000)],
  );
  family(
    r,
    "inflight_history_rows_dropped_total",
    "Rows of the history on disk (seconds, runs, findings) dropped: the file could not be written, or not fast enough",
    "counter",
    (c) => [one(c, getRuntime()?.samples.droppedTotal(c.id) ?? 0)],
  );
  family(r, "inflight_samples_total", "Activity samples taken", "counter", (c) => [one(c, c.stats.samples)]);
  family(
    r,
    "inflight_samples_extra_total",
    "Samples taken between the slots: a short burst when a statement starts (not in inflight_samples_total)",
    "counter",
    (c) => [one(c, c.stats.extraSamples)],
  );
  family(r, "inflight_samples_missed_total", "Samples due but not taken (a statement still running, or no connection)", "counter", (c) => [
    one(c, c.stats.missed),
  ]);
  family(r, "inflight_sample_interval_seconds", "The sampling interval in force (fast while watched)", "gauge", (c) => [
    one(c, c.intervalMs / 1000),
  ]);
  family(
    r,
    "inflight_wait_sample_period_seconds",
    "How often a backend's wait event is sampled, by the sampler in use: pg_stat_activity (inflight's polls) or pg_wait_sampling (the server's own samples, its profile read about once a second)",
    "gauge",
    (c) => {
      const w = c.waitSampler();
      return [one(c, w.periodMs / 1000, { sampler: w.source })];
    },
  );
  family(r, "inflight_viewers", "SSE viewers of the target", "gauge", (c) => [one(c, c.feed.viewers)]);
  family(r, "inflight_sample_duration_seconds", "Round trip of the sampling statement", "histogram", (c) => [
    ...[...SAMPLE_DURATION_BUCKETS, "+Inf" as const].map((le, i) => ({
      ...one(c, c.stats.durationBuckets[i], { le: String(le) }),
      metricName: "inflight_sample_duration_seconds_bucket",
    })),
    { ...one(c, c.stats.durationSum), metricName: "inflight_sample_duration_seconds_sum" },
    { ...one(c, c.stats.durationCount), metricName: "inflight_sample_duration_seconds_count" },
  ]);
}

function lastSampleFamilies(r: Registry): void {
  family(
    r,
    "inflight_aio_handles",
    "Async I/O handles in flight (pg_aios, f_sync = false) at the last sample that read pg_aios, by state and operation",
    "gauge",
    (c) => {
      const tick = c.window.lastAioTick();
      if (!tick) return [];
      return AIO_STATES.flatMap((state) =>
        AIO_OPERATIONS.map((operation) => one(c, tick.aio.byStateOperation[`${state}/${operation}`] ?? 0, { state, operation })),
      );
    },
  );
  family(
    r,
    "inflight_aio_sync_handles",
    "Synchronous handles (pg_aios, f_sync = true) at the last sample that read pg_aios",
    "gauge",
    (c) => {
      const tick = c.window.lastAioTick();
      return tick ? [one(c, tick.aio.sync)] : [];
    },
  );
  family(r, "inflight_aio_bytes", "Bytes of the async handles in flight at the last sample that read pg_aios", "gauge", (c) => {
    const tick = c.window.lastAioTick();
    return tick ? [one(c, tick.aio.bytes)] : [];
  });
  family(
    r,
    "inflight_io_workers",
    "io worker processes: configured (io_workers on 18, io_min_workers on 19), max (io_max_workers, 19 only), alive, busy, at the last sample",
    "gauge",
    (c) => {
      const tick = c.window.lastTick();
      if (!tick) return [];
      return [
        one(c, tick.workers.configured ?? 0, { kind: "configured" }),
        // 18's io_workers is both bounds: its series stay the three.
        ...(tick.workers.max === undefined ? [] : [one(c, tick.workers.max, { kind: "max" })]),
        one(c, tick.workers.alive, { kind: "alive" }),
        one(c, tick.workers.busy, { kind: "busy" }),
      ];
    },
  );
  // 18's io_workers never changes between restarts, so there are none on 18.
  family(
    r,
    "inflight_io_workers_launched_total",
    "io workers seen for the first time (19's pool growing), since inflight started",
    "counter",
    (c) => onPool(c, c.window.turnover.launchedTotal),
  );
  family(r, "inflight_io_workers_exited_total", "io workers gone (19's pool shrinking), since inflight started", "counter", (c) =>
    onPool(c, c.window.turnover.exitedTotal),
  );
}

function settingFamilies(r: Registry): void {
  family(r, "inflight_setting", "Numeric io settings in force (sizes in bytes)", "gauge", (c) =>
    NUMERIC_SETTINGS.flatMap((name) => {
      const s = c.window.settings[name];
      const v = s ? settingValue(s.setting, s.unit) : null;
      return v === null ? [] : [one(c, v, { name })];
    }),
  );
  family(r, "inflight_io_method", "1 for the io_method in force, 0 for the others this build offers", "gauge", (c) => {
    const s = c.window.settings.io_method;
    return s ? (s.enumvals ?? [s.setting]).map((method) => one(c, method === s.setting ? 1 : 0, { method })) : [];
  });
  family(r, "inflight_pending_restart", "1 for an io setting changed since the server started, waiting for a restart", "gauge", (c) => {
    const settings = c.window.settings;
    if (!Object.keys(settings).length) return [];
    // The server's own names: 19 has no io_workers to report 0 for.
    const names = [
      ...IO_SETTINGS.filter((name) => name in settings),
      ...Object.keys(settings).filter((name) => !(IO_SETTINGS as readonly string[]).includes(name)),
    ];
    return names.map((name) => one(c, settings[name]?.pendingRestart ? 1 : 0, { name }));
  });
  family(r, "inflight_restarts_total", "Server restarts seen (a new pg_postmaster_start_time()) since inflight started", "counter", (c) => [
    one(c, c.window.restartsSeen),
  ]);
}

function statIoFamilies(r: Registry): void {
  const io = (name: string, help: string, pick: (row: { reads: number; read_bytes: number; read_time: number }) => number) =>
    family(r, name, help, "counter", (c) =>
      c.window.ioCounters().map((row) => one(c, pick(row), { backend_type: row.backend_type, object: row.object, context: row.context })),
    );
  io("inflight_io_reads_total", "pg_stat_io reads", (row) => row.reads);
  io("inflight_io_read_bytes_total", "pg_stat_io read_bytes", (row) => row.read_bytes);
  io("inflight_io_read_seconds_total", "pg_stat_io read_time (0 unless track_io_timing = on)", (row) => row.read_time / 1000);
}

function build(): Registry {
  const registry = new Registry();
  // The server's own heap, RSS and event loop: how memory grows can be told
  // from heap sizing (the bench's memory figure needs it).
  collectDefaultMetrics({ register: registry });
  targetFamilies(registry);
  sampledFamilies(registry);
  lastSampleFamilies(registry);
  settingFamilies(registry);
  statIoFamilies(registry);
  return registry;
}

const KEY = Symbol.for("inflight.metrics");
type Holder = { [KEY]?: Registry };

export async function metricsText(): Promise<{ body: string; contentType: string }> {
  const holder = globalThis as Holder;
  const registry = (holder[KEY] ??= build());
  return { body: await registry.metrics(), contentType: registry.contentType };
}
