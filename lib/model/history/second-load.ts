// What one second of a target held over ALL its samples (issue 41): the
// kept tick is the second's busiest, which biases any "share of time"; these
// counts do not. Pure: the recorder adds each tick of the second, the sizing
// view sums seconds (and the live window's ticks the same way).
import type { SecondLoad } from "../../schemas/history";
import type { Tick } from "../../schemas/tick";
import { COMPLETION_WAIT, workersFull } from "../window/findings/workers";

const READ_WAIT = "IO:DataFileRead";

export const emptyLoad = (): SecondLoad => ({
  samples: 0,
  reading: 0,
  waiting: 0,
  full: 0,
  atMax: 0,
  fullAtMax: 0,
  idleAtMin: 0,
  launched: 0,
  exited: 0,
  maxAlive: 0,
  maxBusy: 0,
  peakWaiting: 0,
  peakSubmitted: 0,
});

/**
 * Adds one sample. A burst sample (`extra`) is not evenly spaced: it would
 * weigh a statement's first instants twice, so it counts only in the
 * launches and exits, which are events, not shares.
 */
export function addTick(load: SecondLoad, t: Tick): void {
  const w = t.workers;
  load.launched += w.launched ?? 0;
  load.exited += w.exited ?? 0;
  if (t.extra) return;
  const asyncWaits = t.waits[COMPLETION_WAIT] ?? 0;
  const reading = asyncWaits > 0 || (t.aio?.inFlight ?? 0) > 0;
  const full = workersFull(t);
  load.samples++;
  if (reading) load.reading++;
  if (asyncWaits > 0 || (t.waits[READ_WAIT] ?? 0) > 0) load.waiting++;
  if (full) load.full++;
  const atMax = w.max !== undefined && w.alive >= w.max;
  if (atMax) load.atMax++;
  if (atMax && full) load.fullAtMax++;
  if (w.max !== undefined && w.configured !== null && w.alive <= w.configured && w.busy === 0) load.idleAtMin++;
  load.maxAlive = Math.max(load.maxAlive, w.alive);
  load.maxBusy = Math.max(load.maxBusy, w.busy);
  if (full) {
    load.peakWaiting = Math.max(load.peakWaiting, asyncWaits);
    load.peakSubmitted = Math.max(load.peakSubmitted, t.aio?.byState.SUBMITTED ?? 0);
  }
}

/** Ticks grouped by their second, each second's load: the live window's picture in the recorder's terms. */
export function loadsBySecond(ticks: readonly Tick[]): { t: number; load: SecondLoad }[] {
  const out: { t: number; load: SecondLoad }[] = [];
  for (const tick of ticks) {
    const at = Math.floor(tick.t / 1000) * 1000;
    let last = out[out.length - 1];
    if (!last || last.t !== at) out.push((last = { t: at, load: emptyLoad() }));
    addTick(last.load, tick);
  }
  return out;
}
