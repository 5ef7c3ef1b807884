import "server-only";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Collector } from "./collector/collector";
import { getRuntime } from "./runtime";
import { settingBytes } from "./window/settings";

// Every figure on /metrics for Prometheus, read from the collectors at
// scrape time. One registry per process, on globalThis like the runtime.

const NUMERIC_SETTINGS = ["io_workers", "io_max_concurrency", "io_combine_limit", "io_max_combine_limit", "effective_io_concurrency", "maintenance_io_concurrency", "shared_buffers"] as const;

function collectors(): Collector[] {
  return [...(getRuntime()?.collectors.values() ?? [])];
}

/** A setting as a plain number: sizes in bytes, counts as they are. */
function settingValue(setting: string, unit: string | null): number | null {
  const bytes = settingBytes(setting, unit);
  if (bytes !== null) return bytes;
  const n = Number(setting);
  return Number.isFinite(n) ? n : null;
}

function build(): { registry: Registry; sampleDuration: Histogram<"target"> } {
  const registry = new Registry();
  // The server's own heap, RSS and event loop: how memory grows can be told
  // from heap sizing (the bench's memory figure needs it).
  collectDefaultMetrics({ register: registry });
  const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge<string>, c: Collector) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const c of collectors()) fill(this, c);
      },
    });
  const counter = (name: string, help: string, labelNames: string[], fill: (g: Counter<string>, c: Collector) => void) =>
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const c of collectors()) fill(this, c);
      },
    });

  gauge("inflight_target_up", "1 when inflight is connected to the target", ["target"], (g, c) => g.set({ target: c.id }, c.info().status === "up" ? 1 : 0));
  gauge("inflight_aio_handles", "Async I/O handles in flight (pg_aios, f_sync = false) at the last sample", ["target", "state", "operation"], (g, c) => {
    const tick = c.window.ticks.last();
    if (!tick) return;
    const op = Object.keys(tick.aio.byOperation)[0] ?? "readv";
    for (const [state, n] of Object.entries(tick.aio.byState)) g.set({ target: c.id, state, operation: op }, n);
  });
  gauge("inflight_aio_sync_handles", "Synchronous handles (pg_aios, f_sync = true) at the last sample", ["target"], (g, c) => {
    const tick = c.window.ticks.last();
    if (tick) g.set({ target: c.id }, tick.aio.sync);
  });
  gauge("inflight_aio_bytes", "Bytes of the async handles in flight at the last sample", ["target"], (g, c) => {
    const tick = c.window.ticks.last();
    if (tick) g.set({ target: c.id }, tick.aio.bytes);
  });
  gauge("inflight_io_workers", "io worker processes: configured (io_workers), alive, busy", ["target", "kind"], (g, c) => {
    const tick = c.window.ticks.last();
    if (!tick) return;
    if (tick.workers.configured !== null) g.set({ target: c.id, kind: "configured" }, tick.workers.configured);
    g.set({ target: c.id, kind: "alive" }, tick.workers.alive);
    g.set({ target: c.id, kind: "busy" }, tick.workers.busy);
  });
  gauge("inflight_setting", "Numeric io settings in force (sizes in bytes)", ["target", "name"], (g, c) => {
    for (const name of NUMERIC_SETTINGS) {
      const s = c.window.settings[name];
      const v = s && settingValue(s.setting, s.unit);
      if (v !== null && v !== undefined) g.set({ target: c.id, name }, v);
    }
  });
  gauge("inflight_io_method", "1 for the io_method in force", ["target", "method"], (g, c) => {
    const s = c.window.settings.io_method;
    if (!s) return;
    for (const method of s.enumvals ?? [s.setting]) g.set({ target: c.id, method }, method === s.setting ? 1 : 0);
  });
  gauge("inflight_pending_restart", "1 for an io setting changed since start, waiting for a restart", ["target", "name"], (g, c) => {
    for (const [name, s] of Object.entries(c.window.settings)) if (s.pendingRestart) g.set({ target: c.id, name }, 1);
  });
  counter("inflight_restarts_total", "Server restarts seen (new pg_postmaster_start_time())", ["target"], (m, c) => m.inc({ target: c.id }, c.window.restarts.length));
  const ioLabels = ["target", "backend_type", "object", "context"];
  const ioCounter = (name: string, help: string, pick: (r: { reads: number; read_bytes: number; read_time: number }) => number) =>
    counter(name, help, ioLabels, (m, c) => {
      for (const r of c.window.ioCounters()) {
        const v = pick(r);
        if (v > 0) m.inc({ target: c.id, backend_type: r.backend_type, object: r.object, context: r.context }, v);
      }
    });
  ioCounter("inflight_io_reads_total", "pg_stat_io reads", (r) => r.reads);
  ioCounter("inflight_io_read_bytes_total", "pg_stat_io read_bytes", (r) => r.read_bytes);
  ioCounter("inflight_io_read_seconds_total", "pg_stat_io read_time (0 unless track_io_timing = on)", (r) => r.read_time / 1000);
  counter("inflight_samples_total", "Samples taken", ["target"], (m, c) => m.inc({ target: c.id }, c.samples));
  counter("inflight_samples_missed_total", "Samples due but not taken (a statement still running, or no connection)", ["target"], (m, c) => m.inc({ target: c.id }, c.missed));
  gauge("inflight_sample_interval_seconds", "The sampling interval in force (fast while watched)", ["target"], (g, c) => g.set({ target: c.id }, c.intervalMs / 1000));
  gauge("inflight_viewers", "SSE viewers of the target", ["target"], (g, c) => g.set({ target: c.id }, c.hub.viewers));
  const sampleDuration = new Histogram({
    name: "inflight_sample_duration_seconds",
    help: "Round trip of the sampling statement",
    labelNames: ["target"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  return { registry, sampleDuration };
}

const KEY = Symbol.for("inflight.metrics");
type Holder = { [KEY]?: ReturnType<typeof build> };

function metrics() {
  const holder = globalThis as Holder;
  return (holder[KEY] ??= build());
}

export function observeSampleDuration(target: string, seconds: number): void {
  metrics().sampleDuration.observe({ target }, seconds);
}

export async function metricsText(): Promise<{ body: string; contentType: string }> {
  const { registry } = metrics();
  return { body: await registry.metrics(), contentType: registry.contentType };
}
