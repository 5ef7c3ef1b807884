import "server-only";
import type { FleetEntry } from "../../schemas/api";
import type { RestartSummary } from "../../schemas/compare";
import type { QueryRun } from "../../schemas/runs";
import type { Tick } from "../../schemas/tick";
import { redactRuns } from "./redact";
import type { PayloadSource } from "./source";
import { findingsPayload } from "./window";

const SPARK_SECONDS = 60;

/** Max async in flight per whole second over the last minute (pure). */
export function sparkline(ticks: Tick[], now: number, seconds = SPARK_SECONDS): (number | null)[] {
  const end = Math.floor(now / 1000);
  const out: (number | null)[] = new Array(seconds).fill(null);
  for (let i = ticks.length - 1; i >= 0; i--) {
    const slot = seconds - 1 - (end - Math.floor(ticks[i].t / 1000));
    if (slot < 0) break;
    if (slot >= seconds) continue;
    const aio = ticks[i].aio;
    if (aio) out[slot] = Math.max(out[slot] ?? 0, aio.inFlight);
  }
  return out;
}

/** The running query with the most async reads in flight, then the oldest. */
export function busiest(runs: QueryRun[]): QueryRun | null {
  const running = runs.filter((r) => r.endedAt === null);
  running.sort((a, b) => b.inFlightNow - a.inFlightNow || a.startedAt - b.startedAt);
  return running[0] ?? null;
}

/** One target's row of the fleet page. */
export function fleetEntry(source: PayloadSource, now: number, lastRestart: RestartSummary | null = null): FleetEntry {
  const w = source.window;
  const last = w.lastAioTick();
  let top = busiest(w.queries());
  if (top && source.redact) [top] = redactRuns([top], w.statements);
  return {
    target: source.info(),
    pendingRestarts: Object.entries(w.settings)
      .filter(([, s]) => s.pendingRestart)
      .map(([name]) => name),
    inFlightNow: last ? last.aio.inFlight : null,
    syncNow: last ? last.aio.sync : null,
    busiestQuery: top && { id: top.id, query: top.query, verdict: top.verdict, startedAt: top.startedAt, inFlight: top.inFlightNow },
    // Only the last minute, found by binary search: not a copy of the window.
    spark: sparkline(w.ticksFrom(now - SPARK_SECONDS * 1000), now),
    topFinding: findingsPayload(source).findings[0] ?? null,
    lastRestart,
  };
}
