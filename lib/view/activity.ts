// Ticks -> rows of the io workers chart and of the wait-events chart.
import type { Tick } from "@/lib/schemas/tick";
import { shapeSeries, type Outage } from "./series";
import type { TimeDomain } from "./time";

export const LINE_MAX_POINTS = 600;
export const STACK_MAX_POINTS = 200;

export interface WorkersRow {
  t: number;
  /** io_workers (18); null on 19, whose bounds are the band */
  configured: number | null;
  /** 19's pool: io_min_workers..io_max_workers; null on 18 */
  band: [number, number] | null;
  alive: number | null;
  busy: number | null;
}

/** A sample in which io workers were launched or exited (19's pool growing or shrinking; on 18, a worker restarted). */
export interface WorkerTurnoverMark {
  t: number;
  alive: number;
  launched: number;
  exited: number;
}

export interface WorkersChart {
  rows: WorkersRow[];
  /** any io worker configured or alive in the view */
  any: boolean;
  maxConfigured: number;
  /** the dashed line's newest point: io_workers as the newest sample in view had it */
  configuredNow: number | null;
  /** the view shows 19's pool (a band, not a configured line) */
  pool: boolean;
  /** every launch or exit in the view, from the ticks themselves (the rows may be thinned) */
  turnover: WorkerTurnoverMark[];
}

function workersRow(tick: Tick): WorkersRow {
  const { configured, max, alive, busy } = tick.workers;
  const band: [number, number] | null = max !== undefined ? [configured ?? 0, max] : null;
  return { t: tick.t, configured: band ? null : configured, band, alive, busy };
}

export function workersChart(
  ticks: readonly Tick[],
  domain: TimeDomain,
  cadenceMs: number,
  outages: readonly Outage[],
  maxPoints = LINE_MAX_POINTS,
): WorkersChart {
  const rows = shapeSeries(
    ticks,
    { time: (t) => t.t, keys: [(t) => t.workers.busy, (t) => t.workers.alive], domain, cadenceMs, outages, maxPoints },
    workersRow,
    (t): WorkersRow => ({ t, configured: null, band: null, alive: null, busy: null }),
  );
  let any = false;
  let maxConfigured = 0;
  let pool = false;
  let configuredNow: number | null = null;
  for (const r of rows) {
    if ((r.configured ?? 0) > 0 || (r.alive ?? 0) > 0 || r.band) any = true;
    if (r.band) pool = true;
    if (r.configured !== null) configuredNow = r.configured;
    maxConfigured = Math.max(maxConfigured, r.configured ?? 0, r.alive ?? 0, r.band?.[1] ?? 0);
  }
  const turnover = ticks
    .filter((t) => t.t >= domain.from && t.t <= domain.to && ((t.workers.launched ?? 0) > 0 || (t.workers.exited ?? 0) > 0))
    .map((t) => ({ t: t.t, alive: t.workers.alive, launched: t.workers.launched ?? 0, exited: t.workers.exited ?? 0 }));
  return { rows, any, maxConfigured, configuredNow, pool, turnover };
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

export function waitsChart(
  ticks: readonly Tick[],
  domain: TimeDomain,
  cadenceMs: number,
  outages: readonly Outage[],
  maxPoints = STACK_MAX_POINTS,
): WaitsChart {
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
