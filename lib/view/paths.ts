// SVG paths of a chart's series, built straight from its rows (docs/CHARTS.md,
// rule 11): recharts draws the frame (axes, grid, tooltip, marks) and these
// draw the data. recharts' own Area and Line copy the rows into its store
// and rebuild every point as an object at each redraw; a stacked chart of
// 200 rows was then a 50-90 ms task here. A value that is null breaks the
// line or area there (a sample that did not read it), as recharts'
// connectNulls={false} does.

export type Curve = "linear" | "stepAfter";
/** Data value -> pixel, or undefined where the axis cannot place it. */
export type Scale = (value: number) => number | undefined;

/** Pixels to one decimal: shorter strings, and no visible difference. */
const px = (v: number) => Math.round(v * 10) / 10;

/** Runs of consecutive indexes whose value is a number. */
export function runs(n: number, has: (i: number) => boolean): [number, number][] {
  const out: [number, number][] = [];
  let start = -1;
  for (let i = 0; i <= n; i++) {
    const ok = i < n && has(i);
    if (ok && start < 0) start = i;
    else if (!ok && start >= 0) {
      out.push([start, i - 1]);
      start = -1;
    }
  }
  return out;
}

/** Points from `from` to `to` (inclusive, either way round) as path commands after a first M or L. */
function trace(xs: readonly number[], ys: readonly number[], from: number, to: number, curve: Curve, first: "M" | "L"): string {
  const step = from <= to ? 1 : -1;
  let d = `${first}${xs[from]},${ys[from]}`;
  for (let i = from + step; i !== to + step; i += step) {
    if (curve === "stepAfter") {
      // forwards: along at the old value, then up or down; backwards the mirror of that
      d += step > 0 ? `H${xs[i]}V${ys[i]}` : `V${ys[i]}H${xs[i]}`;
    } else d += `L${xs[i]},${ys[i]}`;
  }
  return d;
}

/** The pixel xs of the rows' times. */
export function pixelXs(times: readonly number[], x: Scale): number[] {
  return times.map((t) => px(x(t) ?? NaN));
}

const toPixels = (values: readonly (number | null)[], y: Scale): number[] => values.map((v) => (v === null ? NaN : px(y(v) ?? NaN)));

/** A line through the values, broken where one is null. */
export function linePath(xs: readonly number[], values: readonly (number | null)[], y: Scale, curve: Curve = "linear"): string {
  const ys = toPixels(values, y);
  return runs(xs.length, (i) => Number.isFinite(ys[i]) && Number.isFinite(xs[i]))
    .map(([a, b]) => trace(xs, ys, a, b, curve, "M"))
    .join("");
}

/** The area between `lows` and `highs`, closed, broken where either is null. */
export function areaPath(
  xs: readonly number[],
  lows: readonly (number | null)[],
  highs: readonly (number | null)[],
  y: Scale,
  curve: Curve = "linear",
): string {
  const top = toPixels(highs, y);
  const bottom = toPixels(lows, y);
  return runs(xs.length, (i) => Number.isFinite(top[i]) && Number.isFinite(bottom[i]) && Number.isFinite(xs[i]))
    .map(([a, b]) => `${trace(xs, top, a, b, curve, "M")}${trace(xs, bottom, b, a, curve, "L")}Z`)
    .join("");
}

export interface StackedLayer {
  key: string;
  /** where the layer starts: the layers under it, summed */
  lows: (number | null)[];
  highs: (number | null)[];
}

/**
 * Layers stacked in the order of `keys`, each on the ones before it. A row
 * whose value is null for a key is a gap in that layer and adds nothing to
 * the ones above.
 */
export function stackLayers<R>(
  rows: readonly R[],
  keys: readonly string[],
  value: (row: R, key: string) => number | null | undefined,
): StackedLayer[] {
  const base = new Array<number>(rows.length).fill(0);
  return keys.map((key) => {
    const lows: (number | null)[] = [];
    const highs: (number | null)[] = [];
    rows.forEach((row, i) => {
      const v = value(row, key);
      if (v === null || v === undefined) {
        lows.push(null);
        highs.push(null);
        return;
      }
      lows.push(base[i]);
      base[i] += v;
      highs.push(base[i]);
    });
    return { key, lows, highs };
  });
}

/** The most the stacked layers reach in any row. */
export function stackedMax(layers: readonly StackedLayer[]): number {
  let max = 0;
  for (const l of layers) for (const h of l.highs) if (h !== null && h > max) max = h;
  return max;
}

/** A dot of radius `r` at each value, as one path (one element, not one per point). */
export function dotsPath(xs: readonly number[], values: readonly (number | null)[], y: Scale, r: number): string {
  const ys = toPixels(values, y);
  let d = "";
  for (let i = 0; i < xs.length; i++) {
    if (!Number.isFinite(xs[i]) || !Number.isFinite(ys[i])) continue;
    d += `M${px(xs[i] - r)},${ys[i]}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
  }
  return d;
}

/** The row nearest to time `t` (rows sorted by time; the earlier of two as near), or null when there is none: the row under the pointer. */
export function nearestRow<R extends { t: number }>(rows: readonly R[], t: number): R | null {
  if (!rows.length) return null;
  let lo = 0;
  let hi = rows.length - 1;
  // the first row at or after t
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid].t < t) lo = mid + 1;
    else hi = mid;
  }
  const after = rows[lo];
  const before = lo > 0 ? rows[lo - 1] : null;
  return before && t - before.t <= after.t - t ? before : after;
}
