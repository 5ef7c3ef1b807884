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
