// Ticks -> rows of the io workers chart and of the wait-events chart.
import type { Tick } from "@/lib/schemas/tick";
import { shapeSeries, type Outage } from "./series";
import type { TimeDomain } from "./time";

export const LINE_MAX_POINTS = 600;
export const STACK_MAX_POINTS = 400;

export interface WorkersRow {
  t: number;
  configured: number | null;
  alive: number | null;
  busy: number | null;
}

export interface WorkersChart {
  rows: WorkersRow[];
  /** any io worker configured or alive in the view */
  any: boolean;
  maxConfigured: number;
  /** the dashed line's newest point: io_workers as the newest sample in view had it */
  configuredNow: number | null;
}

export function workersChart(ticks: readonly Tick[], domain: TimeDomain, cadenceMs: number, outages: readonly Outage[], maxPoints = LINE_MAX_POINTS): WorkersChart {
  const rows = shapeSeries(
    ticks,
    { time: (t) => t.t, keys: [(t) => t.workers.busy, (t) => t.workers.alive], domain, cadenceMs, outages, maxPoints },
    (tick): WorkersRow => ({ t: tick.t, configured: tick.workers.configured, alive: tick.workers.alive, busy: tick.workers.busy }),
    (t): WorkersRow => ({ t, configured: null, alive: null, busy: null }),
  );
  let any = false;
  let maxConfigured = 0;
  let configuredNow: number | null = null;
  for (const r of rows) {
    if ((r.configured ?? 0) > 0 || (r.alive ?? 0) > 0) any = true;
    maxConfigured = Math.max(maxConfigured, r.configured ?? 0, r.alive ?? 0);
    if (r.configured !== null) configuredNow = r.configured;
  }
  return { rows, any, maxConfigured, configuredNow };
}

/** Wait-event series drawn by name; the rest are summed as "other". */
export const TOP_WAITS = 5;
export const OTHER_WAITS = "other";

export interface WaitSeries {
  /** row key: w0, w1, ... (wait names may hold characters a data key must not) */
  key: string;
  /** "IO:AioIoCompletion", "CPU", ... or "other" */
  name: string;
}

export interface WaitsRow {
  t: number;
  [key: string]: number | null;
}

export interface WaitsChart {
  rows: WaitsRow[];
  series: WaitSeries[];
  /** most active backends at once in the view */
  max: number;
}

/** The wait events with most samples in [from, to], most first, ties by name. */
export function topWaits(ticks: readonly Tick[], domain: TimeDomain, top = TOP_WAITS): { names: string[]; rest: boolean } {
  const totals = new Map<string, number>();
  for (const tick of ticks) {
    if (tick.t < domain.from || tick.t > domain.to) continue;
    for (const name in tick.waits) totals.set(name, (totals.get(name) ?? 0) + tick.waits[name]);
  }
  const ranked = [...totals.entries()].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { names: ranked.slice(0, top).map(([name]) => name), rest: ranked.length > top };
}

export function waitsChart(ticks: readonly Tick[], domain: TimeDomain, cadenceMs: number, outages: readonly Outage[], maxPoints = STACK_MAX_POINTS): WaitsChart {
  const { names, rest } = topWaits(ticks, domain);
  const series: WaitSeries[] = names.map((name, i) => ({ key: `w${i}`, name }));
  if (rest) series.push({ key: "w_other", name: OTHER_WAITS });
  const index = new Map(names.map((name, i) => [name, `w${i}`]));
  const total = (tick: Tick) => {
    let sum = 0;
    for (const name in tick.waits) sum += tick.waits[name];
    return sum;
  };

  const rows = shapeSeries(
    ticks,
    { time: (t) => t.t, keys: [total], domain, cadenceMs, outages, maxPoints },
    (tick): WaitsRow => {
      const row: WaitsRow = { t: tick.t };
      for (const s of series) row[s.key] = 0;
      for (const name in tick.waits) {
        const key = index.get(name) ?? "w_other";
        row[key] = (row[key] ?? 0) + tick.waits[name];
      }
      return row;
    },
    (t): WaitsRow => {
      const row: WaitsRow = { t };
      for (const s of series) row[s.key] = null;
      return row;
    },
  );
  let max = 0;
  for (const row of rows) {
    let sum = 0;
    for (const s of series) sum += row[s.key] ?? 0;
    max = Math.max(max, sum);
  }
  return { rows, series, max };
}
