import "server-only";
import type { Registry } from "prom-client";
import { waitLabels } from "../../model/window/totals";
import { family, one, onPool } from "./family";

// The counters summed over the samples (the window's totals, ASH style): rate() over any scrape interval gives sub-second averages.

/** Emitted with zeros from the first scrape: the alerts and panels name them. */
const ALWAYS_WAITS = ["CPU", "IO:AioIoCompletion", "IO:DataFileRead", "LWLock:AioWorkerSubmissionQueue"];

export function sampledFamilies(r: Registry): void {
  family(r, "inflight_aio_samples_total", "Samples in which pg_aios was read (the denominator of the handle counters)", "counter", (c) => [
    one(c, c.window.totals.aioSamples),
  ]);
  family(
    r,
    "inflight_backend_wait_samples_total",
    "Active backends by wait event, summed over samples (CPU: no wait event); rate() / rate(inflight_samples_total) = average active sessions",
    "counter",
    (c) => {
      const waits = new Map([...ALWAYS_WAITS.map((key) => [key, 0] as const), ...c.window.totals.waits]);
      return [...waits].map(([key, n]) => one(c, n, waitLabels(key)));
    },
  );
  family(
    r,
    "inflight_aio_handles_sampled_total",
    "pg_aios handles summed over the samples that read it: async (f_sync = false) and sync",
    "counter",
    (c) => [one(c, c.window.totals.asyncHandles, { kind: "async" }), one(c, c.window.totals.syncHandles, { kind: "sync" })],
  );
  family(
    r,
    "inflight_aio_bytes_sampled_total",
    "Bytes of async handles in flight, summed over the samples that read pg_aios",
    "counter",
    (c) => [one(c, c.window.totals.asyncBytes)],
  );
  family(r, "inflight_io_workers_busy_sampled_total", "io workers executing a read, summed over samples", "counter", (c) => [
    one(c, c.window.totals.workersBusy),
  ]);
  family(r, "inflight_io_workers_alive_sampled_total", "io worker processes, summed over samples", "counter", (c) => [
    one(c, c.window.totals.workersAlive),
  ]);
  family(
    r,
    "inflight_read_wait_samples_total",
    "Samples in which at least one backend waited on a read: async (IO:Aio*) or sync (IO:DataFileRead)",
    "counter",
    (c) => [one(c, c.window.totals.asyncReadWaitSamples, { mode: "async" }), one(c, c.window.totals.syncReadWaitSamples, { mode: "sync" })],
  );
  workerLoadFamilies(r);
}

/** The sizing signals (issue 41): how often the io workers were the queue, and 19's pool at its maximum. */
function workerLoadFamilies(r: Registry): void {
  family(
    r,
    "inflight_io_workers_queue_samples_total",
    "Samples in which the io workers were the queue: all of them busy, or more reads waiting than workers, while a backend waited on its reads; or a backend waiting to hand a read over",
    "counter",
    (c) => [one(c, c.window.totals.workersQueueSamples)],
  );
  family(
    r,
    "inflight_io_workers_read_wait_samples_total",
    "Samples in which a backend waited for the io workers (on its async reads, or to hand one over) while at least one was running: what the queue samples are a share of",
    "counter",
    (c) => [one(c, c.window.totals.workersAwaitedSamples)],
  );
  // 18's io_workers has no maximum to reach.
  family(
    r,
    "inflight_io_worker_pool_at_max_samples_total",
    "Samples with the io worker pool at io_max_workers: it could start no more (PostgreSQL 19)",
    "counter",
    (c) => onPool(c, c.window.totals.poolAtMaxSamples),
  );
  family(
    r,
    "inflight_io_worker_pool_at_max_queue_samples_total",
    "Samples with the io worker pool at io_max_workers while its workers were the queue (PostgreSQL 19)",
    "counter",
    (c) => onPool(c, c.window.totals.poolAtMaxQueueSamples),
  );
}
