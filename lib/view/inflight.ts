// Ticks -> rows of the in-flight chart: async handles stacked by state, bytes
// in flight, and synchronous (f_sync) handles kept apart, never stacked.
import type { Tick } from "@/lib/schemas/tick";
import { medianGap, shapeSeries, type Outage } from "./series";
import type { TimeDomain } from "./time";

/** pg_aios states in the order a handle passes through them. */
export const AIO_STATES = ["HANDED_OUT", "DEFINED", "STAGED", "SUBMITTED", "COMPLETED_IO", "COMPLETED_SHARED", "COMPLETED_LOCAL"] as const;
/** Any state this list does not know is counted here. */
export const OTHER_STATE = "OTHER";
export type AioStateKey = (typeof AIO_STATES)[number] | typeof OTHER_STATE;
const KNOWN = new Set<string>(AIO_STATES);

/** Row key of a state's stacked area: s_SUBMITTED, ... */
export type StateDataKey = `s_${AioStateKey}`;
export const stateDataKey = (state: AioStateKey): StateDataKey => `s_${state}`;

export type InFlightRow = {
  t: number;
  /** async handles, all states */
  async: number | null;
  /** kB of the async handles */
  kb: number | null;
  /** synchronous handles (f_sync = true) */
  sync: number | null;
} & Partial<Record<StateDataKey, number | null>>;

export interface InFlightChart {
  rows: InFlightRow[];
  /** states seen in the view, in pipeline order: one stacked area each */
  states: AioStateKey[];
  /** rows with at least one async handle */
  points: number;
  /** most async handles in flight at once in the view */
  max: number;
  maxSync: number;
  /** most kB in flight at once in the view */
  maxKb: number;
}

/** The stacked area is the costliest chart (docs/CHARTS.md, rule 6): smallest budget. */
export const IN_FLIGHT_MAX_POINTS = 200;

export function stateKey(state: string): AioStateKey {
  return KNOWN.has(state) ? (state as AioStateKey) : OTHER_STATE;
}

type AioTick = Tick & { aio: NonNullable<Tick["aio"]> };

/**
 * Only the ticks that read pg_aios (or knew it empty) are drawn: on a large
 * server the budget reads it less often than the wait events, so the line
 * breaks only where such reads are further apart than usual.
 */
export function inFlightChart(
  ticks: readonly Tick[],
  domain: TimeDomain,
  cadenceMs: number,
  outages: readonly Outage[],
  maxPoints = IN_FLIGHT_MAX_POINTS,
): InFlightChart {
  const seen = new Set<AioStateKey>();
  const read = ticks.filter((t): t is AioTick => t.aio !== null);
  const rows = shapeSeries(
    read,
    {
      time: (t) => t.t,
      keys: [(t) => t.aio.inFlight, (t) => t.aio.sync],
      domain,
      cadenceMs: Math.max(cadenceMs, medianGap(read, domain)),
      outages,
      maxPoints,
    },
    (tick): InFlightRow => {
      const row: InFlightRow = { t: tick.t, async: tick.aio.inFlight, kb: tick.aio.bytes / 1024, sync: tick.aio.sync };
      for (const [state, n] of Object.entries(tick.aio.byState)) {
        const key = stateKey(state);
        row[stateDataKey(key)] = (row[stateDataKey(key)] ?? 0) + n;
        if (n > 0) seen.add(key);
      }
      return row;
    },
    (t): InFlightRow => ({ t, async: null, kb: null, sync: null }),
  );
  const order: AioStateKey[] = [...AIO_STATES, OTHER_STATE];
  const states = order.filter((s) => seen.has(s));
  // A stacked series with a missing value breaks the stack: fill zeros, keep
  // the all-null gap rows as they are.
  for (const row of rows) {
    if (row.async === null) continue;
    for (const s of states) row[stateDataKey(s)] ??= 0;
  }
  let points = 0;
  let max = 0;
  let maxSync = 0;
  let maxKb = 0;
  for (const row of rows) {
    maxKb = Math.max(maxKb, row.kb ?? 0);
    if ((row.async ?? 0) > 0) points++;
    max = Math.max(max, row.async ?? 0);
    maxSync = Math.max(maxSync, row.sync ?? 0);
  }
  return { rows, states, points, max, maxSync, maxKb };
}
