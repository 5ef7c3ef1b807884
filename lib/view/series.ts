// From time-ordered samples to chart rows: clip to the view, break the line
// where sampling stopped (an outage, or samples far apart) and thin dense
// series with min/max buckets on absolute time boundaries (docs/CHARTS.md, rule 1).
import type { Outage as WireOutage } from "@/lib/schemas/window";
import { bucketWidth, type TimeDomain } from "./time";

/** What the series need of an outage: when (its error is for the page to say). */
export type Outage = Pick<WireOutage, "from" | "to">;

/** How many sampling intervals apart two samples must be to break the line. */
export const GAP_FACTOR = 3;

export interface SeriesOptions<T> {
  time: (item: T) => number;
  /** the values whose min and max each bucket keeps */
  keys: readonly ((item: T) => number)[];
  domain: TimeDomain;
  /** the sampling interval in force, ms */
  cadenceMs: number;
  outages: readonly Outage[];
  /** most rows to draw (gap rows aside) */
  maxPoints: number;
}

/** Index of the first item at or after `t` (items sorted by time). */
export function lowerBound<T>(items: readonly T[], t: number, time: (item: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (time(items[mid]) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The median interval between consecutive items inside the domain (0 with fewer than two). */
export function medianGap(items: readonly { t: number }[], domain: TimeDomain): number {
  const start = lowerBound(items, domain.from, (i) => i.t);
  const gaps: number[] = [];
  for (let i = start + 1; i < items.length && items[i].t <= domain.to; i++) gaps.push(items[i].t - items[i - 1].t);
  if (!gaps.length) return 0;
  gaps.sort((a, b) => a - b);
  return gaps[gaps.length >> 1];
}

export function inOutage(from: number, to: number, outages: readonly Outage[]): boolean {
  return outages.some((o) => o.from < to && (o.to ?? Infinity) > from);
}

/** Spacings considered on each side when judging whether a spacing is a gap. */
const NEIGHBOURS = 5;

/**
 * gaps[i] is true when the line must break between times[i - 1] and times[i]:
 * an outage overlaps them, or they are more than GAP_FACTOR intervals apart.
 * The interval is the larger of the cadence in force and the (upper) median
 * spacing of the neighbouring samples, so the slower idle cadence of earlier
 * samples is not mistaken for an outage, while two outages in a row still are.
 * Spacings up to minGapMs never break the line (a few missed samples inside
 * one bucket of a thinned series); a recorded outage always does.
 */
export function gapFlags(times: readonly number[], cadenceMs: number, outages: readonly Outage[], minGapMs = 0): boolean[] {
  const gaps = new Array<boolean>(times.length).fill(false);
  for (let i = 1; i < times.length; i++) {
    const dt = times[i] - times[i - 1];
    if (inOutage(times[i - 1], times[i], outages)) gaps[i] = true;
    else if (dt > GAP_FACTOR * cadenceMs && dt > minGapMs) gaps[i] = dt > GAP_FACTOR * neighbourSpacing(times, i);
  }
  return gaps;
}

function neighbourSpacing(times: readonly number[], i: number): number {
  const spacings: number[] = [];
  for (let j = Math.max(1, i - NEIGHBOURS); j <= Math.min(times.length - 1, i + NEIGHBOURS); j++) {
    if (j !== i) spacings.push(times[j] - times[j - 1]);
  }
  if (!spacings.length) return 0;
  spacings.sort((a, b) => a - b);
  return spacings[Math.floor(spacings.length / 2)];
}

/**
 * Indices to draw: per stretch between gaps and per absolute time bucket, the
 * items holding the min and the max of each key, in time order; the newest
 * item always.
 */
export function minMaxIndices(
  times: readonly number[],
  values: readonly (readonly number[])[],
  gaps: readonly boolean[],
  bucketMs: number,
): number[] {
  const keep = new Set<number>();
  const lo = new Array<number>(values.length);
  const hi = new Array<number>(values.length);
  let i = 0;
  while (i < times.length) {
    const bucket = Math.floor(times[i] / bucketMs);
    lo.fill(i);
    hi.fill(i);
    let j = i + 1;
    for (; j < times.length && !gaps[j] && Math.floor(times[j] / bucketMs) === bucket; j++) {
      for (let k = 0; k < values.length; k++) {
        const v = values[k];
        if (v[j] < v[lo[k]]) lo[k] = j;
        if (v[j] > v[hi[k]]) hi[k] = j;
      }
    }
    for (let k = 0; k < values.length; k++) keep.add(lo[k]).add(hi[k]);
    i = j;
  }
  if (times.length) keep.add(times.length - 1);
  return [...keep].sort((a, b) => a - b);
}

/**
 * Chart rows for the items in view: thinned when there are more than
 * maxPoints, with a gap row (all values null, from `gapRow`) wherever the
 * line must break. Never interpolates across a gap.
 */
export function shapeSeries<T, R>(items: readonly T[], opts: SeriesOptions<T>, toRow: (item: T) => R, gapRow: (t: number) => R): R[] {
  const start = lowerBound(items, opts.domain.from, opts.time);
  const end = lowerBound(items, opts.domain.to + 1, opts.time);
  const view = items.slice(start, end);
  const times = view.map(opts.time);
  const thin = view.length > opts.maxPoints;
  // One bucket spare for a view that does not start on a bucket edge, one
  // point spare for the newest item.
  const perBucket = Math.max(2, 2 * opts.keys.length);
  const bucketMs = thin ? bucketWidth(opts.domain.to - opts.domain.from, Math.max(1, Math.floor((opts.maxPoints - 1) / perBucket) - 1)) : 0;
  const gaps = gapFlags(times, opts.cadenceMs, opts.outages, bucketMs);
  const picked = thin
    ? minMaxIndices(
        times,
        opts.keys.map((key) => view.map(key)),
        gaps,
        bucketMs,
      )
    : view.map((_, i) => i);

  const rows: R[] = [];
  let prev = -1;
  for (const i of picked) {
    // A gap anywhere between two kept items breaks the line between them.
    let gap = false;
    for (let j = prev + 1; prev >= 0 && j <= i && !gap; j++) gap = gaps[j];
    if (gap) rows.push(gapRow((times[prev] + times[i]) / 2));
    rows.push(toRow(view[i]));
    prev = i;
  }
  return rows;
}

/**
 * Pixel columns of the plot for each point a series may hand its chart. One
 * point a column was the first budget; two columns a point halves what
 * recharts computes and draws at every redraw (a line of 430 points in an
 * 860 px plot reads the same, and each bucket still keeps its min and max),
 * the largest share of the page's main thread (BENCHMARKS.md, "Light where
 * it runs").
 */
export const PX_PER_POINT = 2;

/** The fewest points a measured chart is handed, however narrow its box. */
export const MIN_POINTS = 16;

/**
 * The pixel columns a chart's points and redraws are paced by: its plot (the
 * box less its axes, `insetPx`), never fewer than MIN_POINTS points' worth;
 * the cap's worth until the box is measured. pixelBudget and the redraw pace
 * (redrawMs) both read it, so they cannot disagree about a plot.
 */
export function plotPixels(boxWidth: number | null, cap: number, insetPx: number): number {
  if (boxWidth === null || !(boxWidth > 0)) return cap * PX_PER_POINT;
  return Math.max(MIN_POINTS * PX_PER_POINT, boxWidth - insetPx);
}

/**
 * Most points a series may hand its chart: one per PX_PER_POINT pixel
 * columns of its plot (plotPixels), never more than the chart's own cap.
 */
export function pixelBudget(boxWidth: number | null, cap: number, insetPx: number): number {
  return Math.min(cap, Math.floor(plotPixels(boxWidth, cap, insetPx) / PX_PER_POINT));
}

/** The pixel columns a live chart's view moves by between two redraws. */
export const REDRAW_PX = 4;

/**
 * How long a live chart waits between redraws: the time its view takes to
 * move by REDRAW_PX pixel columns of its plot (a 15-minute window in an
 * 860 px plot: 4.2 s). Each redraw of a full window is recharts' render and
 * the browser's paint of every point, the page's largest cost (BENCHMARKS.md,
 * "Light where it runs"). `plotPx`: plotPixels, never under MIN_POINTS
 * points' worth; 0 px (no plot at all) waits a whole span.
 */
export function redrawMs(spanMs: number, plotPx: number): number {
  return plotPx > 0 ? (REDRAW_PX * spanMs) / plotPx : spanMs;
}
