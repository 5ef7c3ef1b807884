// 19's self-sizing io worker pool as the samples see it: its bounds on each
// tick, and which workers were launched or exited since the previous sample
// (a pid seen for the first time, or gone). 18's io_workers never changes
// between restarts, so there the counts stay absent unless a worker died.
import type { Settings } from "../../schemas/settings";
import type { Tick } from "../../schemas/tick";
import { workerSizing } from "./major";

/** io_max_workers for a tick's `workers.max`, on 19 only. */
export function poolBounds(settings: Readonly<Settings>): { max?: number } {
  const sizing = workerSizing(settings);
  return settings.io_method?.setting === "worker" && sizing?.kind === "pool" ? { max: sizing.max } : {};
}

/** 19's pool at io_max_workers in this sample: it can grow no further. Never on 18 (no max). */
export const poolAtMax = (t: Tick): boolean => t.workers.max !== undefined && t.workers.alive >= t.workers.max;

export class WorkerTurnover {
  private prev: Set<number> | null = null;
  /** launches and exits seen since inflight started, every sample's (for Prometheus; never evicted) */
  launchedTotal = 0;
  exitedTotal = 0;
  /** when an io worker was first seen gone since this server started (19's pool shrinking); null before */
  firstExitAt: number | null = null;

  /**
   * A new server start: its workers are new processes, not the pool
   * growing, and the old server's are gone with it, not the pool shrinking.
   * The next sample starts afresh.
   */
  forget(): void {
    this.prev = null;
    this.firstExitAt = null;
  }

  /** Launched and exited since the last call (the sample at `t`), each only when not 0; the first sample has nothing to compare with. */
  next(pids: readonly number[], t: number): Pick<Tick["workers"], "launched" | "exited"> {
    const now = new Set(pids);
    const prev = this.prev;
    this.prev = now;
    if (!prev) return {};
    let launched = 0;
    let exited = 0;
    for (const pid of now) if (!prev.has(pid)) launched++;
    for (const pid of prev) if (!now.has(pid)) exited++;
    this.launchedTotal += launched;
    this.exitedTotal += exited;
    if (exited && this.firstExitAt === null) this.firstExitAt = t;
    return { ...(launched ? { launched } : {}), ...(exited ? { exited } : {}) };
  }
}

export interface PoolGrowth {
  /** fewest and most alive over the ticks */
  minAlive: number;
  maxAlive: number;
  /** alive in the newest tick */
  alive: number;
  launched: number;
  exited: number;
}

/** How the pool moved over some ticks (the findings' last seconds). */
export function poolGrowth(ticks: readonly Tick[]): PoolGrowth | null {
  const withWorkers = ticks.filter((t) => t.workers.alive > 0);
  if (!withWorkers.length) return null;
  let launched = 0;
  let exited = 0;
  for (const t of ticks) {
    launched += t.workers.launched ?? 0;
    exited += t.workers.exited ?? 0;
  }
  const alive = withWorkers.map((t) => t.workers.alive);
  return { minAlive: Math.min(...alive), maxAlive: Math.max(...alive), alive: alive.at(-1)!, launched, exited };
}
