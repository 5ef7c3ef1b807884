// Counters that accumulate every sample since inflight started (ASH style),
// for Prometheus: rate() over any scrape interval gives the sub-second
// averages (average active sessions per wait event, mean in-flight depth,
// mean busy io workers) that a 15 s scrape of last-sample gauges would miss.
// Unlike the window they are never evicted. Pure.
import type { Tick } from "../../schemas/tick";
import { workersAwaited, workersFull } from "./findings/workers";
import { poolAtMax } from "./pool";

export const CPU_WAIT = "CPU";

/** A tick's wait key ("IO:AioIoCompletion", "CPU") as Prometheus labels. */
export function waitLabels(key: string): { wait_event_type: string; wait_event: string } {
  if (key === CPU_WAIT) return { wait_event_type: CPU_WAIT, wait_event: CPU_WAIT };
  const colon = key.indexOf(":");
  return { wait_event_type: key.slice(0, colon), wait_event: key.slice(colon + 1) };
}

const ASYNC_READ_WAIT = /^IO:Aio/;
const SYNC_READ_WAITS = new Set(["IO:DataFileRead", "IO:DataFilePrefetch"]);

export class SampleTotals {
  /** activity samples taken (the denominator of the wait counters) */
  samples = 0;
  /** samples in which pg_aios was read (the denominator of the handle counters) */
  aioSamples = 0;
  /** active backends by wait key, summed over samples */
  readonly waits = new Map<string, number>();
  asyncHandles = 0;
  syncHandles = 0;
  asyncBytes = 0;
  workersBusy = 0;
  workersAlive = 0;
  /** samples in which at least one backend waited on a read of that mode */
  asyncReadWaitSamples = 0;
  syncReadWaitSamples = 0;
  /** samples in which the io workers were the queue (workersFull: the sizing view's definition) */
  workersQueueSamples = 0;
  /** samples in which a backend waited for the io workers (workersAwaited): the queue share's denominator */
  workersAwaitedSamples = 0;
  /** samples with 19's pool at io_max_workers, and those of them in which the workers were the queue */
  poolAtMaxSamples = 0;
  poolAtMaxQueueSamples = 0;

  /** A tick whose pg_aios was read, or known empty (no backend active), counts for the handles. */
  add(tick: Tick): void {
    this.samples++;
    let asyncWait = false;
    let syncWait = false;
    for (const key in tick.waits) {
      this.waits.set(key, (this.waits.get(key) ?? 0) + tick.waits[key]);
      if (ASYNC_READ_WAIT.test(key)) asyncWait = true;
      if (SYNC_READ_WAITS.has(key)) syncWait = true;
    }
    if (asyncWait) this.asyncReadWaitSamples++;
    if (syncWait) this.syncReadWaitSamples++;
    this.workersBusy += tick.workers.busy;
    this.workersAlive += tick.workers.alive;
    this.addWorkerLoad(tick);
    if (tick.aio) {
      this.aioSamples++;
      this.asyncHandles += tick.aio.inFlight;
      this.syncHandles += tick.aio.sync;
      this.asyncBytes += tick.aio.bytes;
    }
  }

  private addWorkerLoad(tick: Tick): void {
    const full = workersFull(tick);
    const atMax = poolAtMax(tick);
    if (full) this.workersQueueSamples++;
    if (workersAwaited(tick)) this.workersAwaitedSamples++;
    if (atMax) this.poolAtMaxSamples++;
    if (atMax && full) this.poolAtMaxQueueSamples++;
  }
}
