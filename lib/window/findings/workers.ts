// Whether the io workers are the queue, over the last few seconds of ticks.
import type { Tick } from "../../schemas/tick";
import { WORKERS_BUSY_SHARE, WORKERS_MIN_SAMPLES } from "./thresholds";

export const SUBMISSION_QUEUE_WAIT = "LWLock:AioWorkerSubmissionQueue";

export interface WorkerLoad {
  /** ticks judged (with at least one io worker alive) */
  samples: number;
  alive: number;
  /** most busy at once */
  maxBusy: number;
  /** share of the ticks with every io worker busy */
  allBusyShare: number;
  /** ticks in which a backend waited to hand a read to the io workers */
  queueWaits: number;
  /** share of the ticks that read pg_aios with more handles SUBMITTED (waiting for a worker) than io workers */
  submittedAboveShare: number;
  /** the io workers are the queue */
  saturated: boolean;
}

/** Which evidence says the io workers are the queue, in plain words; null when none does. */
export function queueEvidence(w: WorkerLoad): string | null {
  if (!w.saturated) return null;
  if (w.queueWaits > 0) return `backends waited for the submission queue (LWLock:AioWorkerSubmissionQueue) in ${w.queueWaits} samples`;
  const who = w.alive === 1 ? "the one io worker" : `all ${w.alive}`;
  if (w.allBusyShare >= WORKERS_BUSY_SHARE) return `${who} busy in ${Math.round(w.allBusyShare * 100)}% of the samples of the last 5 s`;
  return `more reads waiting for an io worker (SUBMITTED) than there are io workers in ${Math.round(w.submittedAboveShare * 100)}% of the samples of the last 5 s`;
}

export function workerLoad(ticks: readonly Tick[]): WorkerLoad {
  let samples = 0;
  let allBusy = 0;
  let maxBusy = 0;
  let alive = 0;
  let queueWaits = 0;
  let aioTicks = 0;
  let submittedAbove = 0;
  for (const t of ticks) {
    if ((t.waits[SUBMISSION_QUEUE_WAIT] ?? 0) > 0) queueWaits++;
    if (t.workers.alive === 0) continue;
    samples++;
    alive = Math.max(alive, t.workers.alive);
    maxBusy = Math.max(maxBusy, t.workers.busy);
    if (t.workers.busy >= t.workers.alive) allBusy++;
    if (t.aio) {
      aioTicks++;
      if ((t.aio.byState.SUBMITTED ?? 0) > t.workers.alive) submittedAbove++;
    }
  }
  const allBusyShare = samples ? allBusy / samples : 0;
  const submittedAboveShare = aioTicks ? submittedAbove / aioTicks : 0;
  const judged = samples >= WORKERS_MIN_SAMPLES;
  return {
    samples,
    alive,
    maxBusy,
    allBusyShare,
    queueWaits,
    submittedAboveShare,
    saturated: queueWaits > 0 || (judged && (allBusyShare >= WORKERS_BUSY_SHARE || (aioTicks >= WORKERS_MIN_SAMPLES && submittedAboveShare >= WORKERS_BUSY_SHARE))),
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
