import "server-only";
import type { Collector } from "./collector/collector";
import type { FleetEntry, QueryRun, Tick } from "./schemas/window";

const SPARK_SECONDS = 60;

/** Max async in flight per whole second over the last minute (pure). */
export function sparkline(ticks: Tick[], now: number, seconds = SPARK_SECONDS): (number | null)[] {
  const end = Math.floor(now / 1000);
  const out: (number | null)[] = new Array(seconds).fill(null);
  for (let i = ticks.length - 1; i >= 0; i--) {
    const slot = seconds - 1 - (end - Math.floor(ticks[i].t / 1000));
    if (slot < 0) break;
    if (slot >= seconds) continue;
    out[slot] = Math.max(out[slot] ?? 0, ticks[i].aio.inFlight);
  }
  return out;
}

/** The running query with the most async reads in flight, then the oldest. */
export function busiest(runs: QueryRun[]): QueryRun | null {
  const running = runs.filter((r) => r.endedAt === null);
  running.sort((a, b) => b.inFlightNow - a.inFlightNow || a.startedAt - b.startedAt);
  return running[0] ?? null;
}

export function fleetEntry(collector: Collector, now: number): FleetEntry {
  const w = collector.window;
  const last = w.ticks.last();
  // Only the last minute, found by binary search: not a copy of the window.
  const ticks = w.ticks.since((t) => t.t > now - SPARK_SECONDS * 1000);
  const top = busiest(w.queries());
  return {
    target: collector.info(),
    pendingRestarts: Object.entries(w.settings).filter(([, s]) => s.pendingRestart).map(([name]) => name),
    inFlightNow: last ? last.aio.inFlight : null,
    syncNow: last ? last.aio.sync : null,
    busiestQuery: top && { id: top.id, query: top.query, verdict: top.verdict, startedAt: top.startedAt, inFlight: top.inFlightNow },
    spark: sparkline(ticks, now),
  };
}
