// Time axes: ticks and bucket widths on round, absolute boundaries, so that
// redrawing a sliding window never moves a tick or a bucket edge.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const TICK_STEPS = [
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  6 * HOUR,
  12 * HOUR,
  24 * HOUR,
] as const;

const BUCKET_STEPS = [
  10,
  20,
  50,
  100,
  200,
  250,
  500,
  SECOND,
  2 * SECOND,
  3 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
] as const;

/** Round time ticks in [from, to], at most `maxTicks` of them. */
export function timeTicks(from: number, to: number, maxTicks = 6): number[] {
  if (!(to > from) || maxTicks < 1) return [];
  const span = to - from;
  const step = TICK_STEPS.find((s) => span / s <= maxTicks) ?? Math.ceil(span / maxTicks / HOUR) * HOUR;
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return ticks;
}

/** The smallest round bucket width that cuts `spanMs` into at most `maxBuckets`. */
export function bucketWidth(spanMs: number, maxBuckets: number): number {
  if (spanMs <= 0 || maxBuckets < 1) return BUCKET_STEPS[0];
  return BUCKET_STEPS.find((s) => spanMs / s <= maxBuckets) ?? Math.ceil(spanMs / maxBuckets / HOUR) * HOUR;
}

/** The span a view shows: a fixed length, or the whole window. */
export const VIEW_SPANS = [
  { id: "1m", label: "1 min", ms: MINUTE },
  { id: "5m", label: "5 min", ms: 5 * MINUTE },
  { id: "window", label: "window", ms: null },
] as const;
export type ViewSpanId = (typeof VIEW_SPANS)[number]["id"];

export interface TimeDomain {
  from: number;
  to: number;
}

/** The visible time range, ending at the newest sample (server time, never the browser's clock). */
export function viewDomain(newest: number, spanMs: number | null, windowMs: number): TimeDomain {
  const span = Math.min(spanMs ?? windowMs, windowMs);
  return { from: newest - span, to: newest };
}
