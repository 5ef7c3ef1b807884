// 19's io worker pool: the findings that replace 18's "raise io_workers".
// The pool grows by itself while workers see a queue, so busy workers below
// io_max_workers are the pool doing its job, not a limit; only a pool at its
// maximum and saturated is one, and its lever is io_max_workers. On 18
// (io_workers) nothing here applies and 18's rules (server.ts, runs.ts) speak.
import type { Settings } from "../../../schemas/settings";
import type { Tick } from "../../../schemas/tick";
import { workerSizing, workersLever } from "../major";
import { poolGrowth } from "../pool";
import { capitalize } from "./figures";
import type { NewFinding } from "./server";
import { queueEvidence, type WorkerLoad } from "./workers";

interface PoolInput {
  settings: Readonly<Settings>;
  recent: readonly Tick[];
  workers: WorkerLoad;
  /** the first io worker exit seen since this server started; null: none seen */
  poolExitAt?: number | null;
}

function poolOf(settings: Readonly<Settings>): { min: number; max: number } | null {
  const sizing = workerSizing(settings);
  return settings.io_method?.setting === "worker" && sizing?.kind === "pool" ? sizing : null;
}

/** On 19 the workers are the queue only when the pool cannot grow: at io_max_workers. 18's load passes through. */
export function poolLoad(settings: Readonly<Settings>, w: WorkerLoad): WorkerLoad {
  const pool = poolOf(settings);
  if (!pool || !w.saturated || w.alive >= pool.max) return w;
  return { ...w, saturated: false };
}

/** What to raise when the io workers are the queue, as a run's finding says it. */
export function workersLeverText(settings: Readonly<Settings>, w: WorkerLoad): string {
  const pool = poolOf(settings);
  return pool ? `the pool is at its maximum: ${workersLever(settings, w.alive)}` : workersLever(settings, w.alive);
}

/** The pool below its maximum, in a run's finding: growing or idle room, not the limit; null on 18. */
export function poolNote(settings: Readonly<Settings>, recent: readonly Tick[]): string | null {
  const pool = poolOf(settings);
  const growth = poolGrowth(recent);
  if (!pool || !growth || growth.alive >= pool.max) return null;
  const grew = growth.launched > 0 || growth.maxAlive > growth.minAlive;
  return grew
    ? `the io worker pool is growing (${growth.minAlive} -> ${growth.alive} of up to ${pool.max}) and is not the limit`
    : `the io worker pool runs ${growth.alive} of up to ${pool.max} and is not the limit`;
}

/** The pool at io_max_workers with every worker busy (or backends queueing for them): raise io_max_workers. */
export function poolSaturated({ settings, workers: w }: PoolInput): NewFinding | null {
  const pool = poolOf(settings);
  if (!pool || !w.saturated || w.alive < pool.max) return null;
  return {
    id: "workers_queue",
    rule: "workers_queue",
    severity: "act",
    glance: { now: `The io worker pool is full at its maximum (${pool.max})`, lever: `raise io_max_workers (now ${pool.max})` },
    text: `The io worker pool is at its maximum (${pool.max}) and saturated: ${workersLever(settings, w.alive)} and measure again. ${capitalize(queueEvidence(w) ?? "every worker busy")}.`,
    evidence: {
      ioWorkers: w.alive,
      ioMinWorkers: pool.min,
      ioMaxWorkers: pool.max,
      allBusyShare: w.allBusyShare,
      queueWaits: w.queueWaits,
      submittedAboveShare: w.submittedAboveShare,
    },
  };
}

/** The pool grew in the last seconds and is still below its maximum: it is doing its job. */
export function poolGrowing({ settings, recent, poolExitAt = null }: PoolInput): NewFinding | null {
  const pool = poolOf(settings);
  const growth = poolGrowth(recent);
  if (!pool || !growth || growth.launched === 0 || growth.alive >= pool.max) return null;
  const waited = waitedAtMin(recent, pool.min);
  // "Shrunk" only when a worker was seen exiting before the burst; else the pool may have sat at its minimum all along.
  const shrunk = waited !== null && poolExitAt !== null && poolExitAt < waited.firstLaunchAt;
  const evidence = waited
    ? `(all ${pool.min} busy with backends waiting on ${waited.wait} in ${waited.samples} samples before the first launch)`
    : "";
  const cold = !waited
    ? ""
    : shrunk
      ? ` It had shrunk to io_min_workers = ${pool.min} before the burst: the first reads waited for workers to start ${evidence}; a higher io_min_workers or io_worker_idle_timeout keeps them ready.`
      : ` It was at io_min_workers = ${pool.min} when the burst came: the first reads waited for workers to start ${evidence}; a higher io_min_workers keeps more ready.`;
  return {
    id: "pool_growing",
    rule: "pool_growing",
    severity: "info",
    glance: {
      now: `The io worker pool is growing (${growth.minAlive} -> ${growth.alive} of up to ${pool.max})`,
      lever: waited ? `raise io_min_workers (now ${pool.min}) to start warm` : null,
    },
    text: `The io worker pool is growing: ${growth.launched} io worker${growth.launched === 1 ? "" : "s"} launched in the last 5 s (${growth.minAlive} -> ${growth.alive}, of up to io_max_workers = ${pool.max}). PostgreSQL 19 adds workers when reads queue for them: the pool is not the limit.${cold}`,
    evidence: {
      launched: growth.launched,
      from: growth.minAlive,
      alive: growth.alive,
      ioMinWorkers: pool.min,
      ioMaxWorkers: pool.max,
      waitedAtMin: waited?.samples ?? 0,
      shrunkBefore: shrunk,
    },
  };
}

const QUEUE_WAITS = ["LWLock:AioWorkerSubmissionQueue", "IO:AioIoCompletion"] as const;

/** Before the first launch: samples with the pool at io_min_workers, all busy, and a backend waiting for a read. */
function waitedAtMin(recent: readonly Tick[], min: number): { samples: number; wait: string; firstLaunchAt: number } | null {
  const first = recent.findIndex((t) => (t.workers.launched ?? 0) > 0);
  if (first <= 0) return null;
  let samples = 0;
  let wait: string = QUEUE_WAITS[1];
  for (const t of recent.slice(0, first)) {
    const key = QUEUE_WAITS.find((k) => (t.waits[k] ?? 0) > 0);
    if (t.workers.alive !== min || t.workers.busy < t.workers.alive || !key) continue;
    samples++;
    if (key === QUEUE_WAITS[0]) wait = key;
  }
  return samples > 0 ? { samples, wait, firstLaunchAt: recent[first].t } : null;
}
