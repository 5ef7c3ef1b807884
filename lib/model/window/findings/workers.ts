// Whether the io workers are the queue (PostgreSQL 18's io_workers), over
// the last few seconds of ticks. One sample is an instant: a worker that
// finished a read and is picking up the next can read idle (IoWorkerMain)
// though it never stopped, so a sample also counts as saturated when more
// reads wait in pg_aios (SUBMITTED) than workers could be executing, or when
// it is one such instant between two full samples; and it matters only
// while a backend waits for them. Measured with one io worker behind six
// cold scans: the worker read busy in 85-92% of the samples, full by these
// signs in 97-100% (50 ms samples) and 84-94% (the defaults, without the
// bridging).
import type { Tick } from "../../../schemas/tick";
import { pct } from "./figures";
import { WORKERS_BUSY_SHARE, WORKERS_MIN_SAMPLES, WORKERS_PARTIAL_SHARE, WORKERS_SPAN_MS } from "./thresholds";

export const SUBMISSION_QUEUE_WAIT = "LWLock:AioWorkerSubmissionQueue";
export const COMPLETION_WAIT = "IO:AioIoCompletion";

/** none: not the queue; partial: the queue part of the time (a note); queue: most of the time (act). */
export type WorkersLevel = "none" | "partial" | "queue";

export interface WorkerLoad {
  /** ticks judged (with at least one io worker alive) */
  samples: number;
  /** io workers alive in the newest of them: the io_workers in force */
  alive: number;
  /** most busy at once */
  maxBusy: number;
  /** share of the samples with every alive io worker busy (1 of 1 counts) */
  allBusyShare: number;
  /** share of the samples with a backend waiting on its async reads (IO:AioIoCompletion) */
  completionWaitShare: number;
  /** samples in which a backend waited to hand a read to the io workers */
  queueWaits: number;
  /** share of the samples that read pg_aios with more handles SUBMITTED than io workers alive: reads queued for a worker */
  submittedAboveShare: number;
  /** share of the samples in which the workers were full (all busy, reads queued, or a submission queue wait) while a backend waited */
  saturatedShare: number;
  level: WorkersLevel;
  /** level !== "none": the io workers are a lever */
  saturated: boolean;
}

interface Counts {
  samples: number;
  alive: number;
  maxBusy: number;
  allBusy: number;
  waiting: number;
  queueWaits: number;
  aioTicks: number;
  submittedAbove: number;
  saturated: number;
}

/** One sample as the rule reads it. */
interface Seen {
  allBusy: boolean;
  queued: boolean;
  queueWait: boolean;
  waiting: boolean;
  /** full on its own evidence: every worker busy or reads queued while a backend waited, or a submission queue wait */
  full: boolean;
}

function seen(t: Tick): Seen {
  const { alive, busy } = t.workers;
  const allBusy = busy >= alive;
  const queueWait = (t.waits[SUBMISSION_QUEUE_WAIT] ?? 0) > 0;
  const waiting = (t.waits[COMPLETION_WAIT] ?? 0) > 0;
  const queued = t.aio !== null && (t.aio.byState.SUBMITTED ?? 0) > alive;
  return { allBusy, queued, queueWait, waiting, full: queueWait || ((allBusy || queued) && waiting) };
}

/**
 * One sample on its own evidence (no bridging): the io workers full (every
 * alive worker busy, or more reads SUBMITTED than workers) while a backend
 * waited on its reads, or a backend waiting to hand a read over. The
 * sizing view's and /metrics' "the io workers were the queue".
 */
export const workersFull = (t: Tick): boolean => t.workers.alive > 0 && seen(t).full;

/**
 * One sample in which a backend waited for the io workers, one alive: on
 * its async reads, or to hand one over. The denominator of workersFull on
 * /metrics: every full sample is one of these, so the share stays within 1.
 */
export function workersAwaited(t: Tick): boolean {
  if (t.workers.alive === 0) return false;
  const x = seen(t);
  return x.waiting || x.queueWait;
}

function count(ticks: readonly Tick[]): Counts {
  const c: Counts = {
    samples: 0,
    alive: 0,
    maxBusy: 0,
    allBusy: 0,
    waiting: 0,
    queueWaits: 0,
    aioTicks: 0,
    submittedAbove: 0,
    saturated: 0,
  };
  const judged = ticks.filter((t) => t.workers.alive > 0);
  const samples = judged.map(seen);
  samples.forEach((x, i) => {
    const t = judged[i];
    c.samples++;
    c.alive = t.workers.alive;
    c.maxBusy = Math.max(c.maxBusy, t.workers.busy);
    if (x.allBusy) c.allBusy++;
    if (x.waiting) c.waiting++;
    if (x.queueWait) c.queueWaits++;
    if (t.aio) c.aioTicks++;
    if (x.queued) c.submittedAbove++;
    // A worker between two reads reads idle for an instant: one such sample between two full ones,
    // a backend still waiting, was full too (pg_aios, which would show the reads queued, is not read
    // in every sample at the default budget).
    const bridged = x.waiting && samples[i - 1]?.full === true && samples[i + 1]?.full === true;
    if (x.full || bridged) c.saturated++;
  });
  return c;
}

export function workerLoad(ticks: readonly Tick[]): WorkerLoad {
  const c = count(ticks);
  const share = (n: number, of = c.samples) => (of ? n / of : 0);
  const saturatedShare = share(c.saturated);
  const judged = c.samples >= WORKERS_MIN_SAMPLES;
  const level: WorkersLevel = !judged
    ? "none"
    : saturatedShare >= WORKERS_BUSY_SHARE
      ? "queue"
      : saturatedShare >= WORKERS_PARTIAL_SHARE
        ? "partial"
        : "none";
  return {
    samples: c.samples,
    alive: c.alive,
    maxBusy: c.maxBusy,
    allBusyShare: share(c.allBusy),
    completionWaitShare: share(c.waiting),
    queueWaits: c.queueWaits,
    submittedAboveShare: share(c.submittedAbove, c.aioTicks),
    saturatedShare,
    level,
    saturated: level !== "none",
  };
}

const SPAN = `${WORKERS_SPAN_MS / 1000} s`;

/** "1 of 1 io workers": how many were alive, and so could all be busy. */
const allOf = (w: WorkerLoad) => `${w.alive} of ${w.alive} io worker${w.alive === 1 ? "" : "s"}`;

/**
 * The evidence that the io workers are the queue, in plain words: how often
 * they were full while backends waited, and what showed it. Null when they
 * are not.
 */
export function queueEvidence(w: WorkerLoad): string | null {
  if (!w.saturated) return null;
  const parts = [
    `${allOf(w)} busy in ${pct(w.allBusyShare)}`,
    `backends waiting on their reads (${COMPLETION_WAIT}) in ${pct(w.completionWaitShare)}`,
  ];
  if (w.submittedAboveShare > 0) parts.push(`more reads submitted than io workers (queued for one) in ${pct(w.submittedAboveShare)}`);
  if (w.queueWaits > 0) parts.push(`backends waited for the submission queue (${SUBMISSION_QUEUE_WAIT}) in ${w.queueWaits} samples`);
  return `full while backends waited on them in ${pct(w.saturatedShare)} of the samples of the last ${SPAN} (${parts.join("; ")})`;
}

/** "the io workers are the queue" / "... part of the time": how the sentence names the level. */
export function queueHead(w: WorkerLoad): string {
  return w.level === "queue" ? "the io workers are the queue" : "the io workers are the queue part of the time";
}

/**
 * What the io workers did while a run read asynchronously and they were not
 * the queue, never "not saturated" once every worker was seen busy.
 */
export function workersIdleText(w: WorkerLoad): string {
  if (w.alive === 0) return "no io worker seen";
  if (w.maxBusy >= w.alive)
    return `${allOf(w)} busy in ${pct(w.allBusyShare)} of the samples of the last ${SPAN}, full while backends waited on them in ${pct(w.saturatedShare)}: too seldom to be its queue`;
  return `io workers never all busy (at most ${w.maxBusy} of ${w.alive})`;
}

/** The figures a workers finding cites, by name. */
export function workersEvidence(w: WorkerLoad): Record<string, number | string> {
  const r = (n: number) => Math.round(n * 1000) / 1000;
  return {
    level: w.level,
    ioWorkers: w.alive,
    saturatedShare: r(w.saturatedShare),
    allBusyShare: r(w.allBusyShare),
    completionWaitShare: r(w.completionWaitShare),
    submittedAboveShare: r(w.submittedAboveShare),
    queueWaits: w.queueWaits,
    samples: w.samples,
  };
}

/** Share of active-backend samples waiting on one wait event over the ticks. */
export function waitShare(ticks: readonly Tick[], key: string): { share: number; samples: number } {
  let total = 0;
  let hits = 0;
  for (const t of ticks) {
    for (const k in t.waits) {
      total += t.waits[k];
      if (k === key) hits += t.waits[k];
    }
  }
  return { share: total ? hits / total : 0, samples: total };
}
