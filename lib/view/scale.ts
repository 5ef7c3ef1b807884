// Value-axis ticks for sizes: powers of two read naturally in kB (8, 16, 128).

/** 0, step, 2 step, ... up to the first multiple >= max; step a power of two; at most maxTicks + 1 ticks. */
export function pow2Ticks(max: number, maxTicks = 4): number[] {
  const top = Number.isFinite(max) && max > 0 ? max : 1;
  let step = 1;
  while (Math.ceil(top / step) > maxTicks) step *= 2;
  const n = Math.ceil(top / step);
  return Array.from({ length: n + 1 }, (_, i) => i * step);
}

export interface SizeAxis {
  ticks: number[];
  domain: [number, number];
}

export function sizeAxis(max: number, maxTicks = 4): SizeAxis {
  const ticks = pow2Ticks(max, maxTicks);
  return { ticks, domain: [0, ticks[ticks.length - 1]] };
}

/**
 * A value axis from 0 with round ticks (steps of 1, 2, 2.5 or 5 times a
 * power of ten that labels of `decimals` decimals show as they are: whole
 * steps for counts, the default), at most `maxTicks` intervals, and
 * at least up to `least`. A chart that draws its own series sets its axis
 * from the rows (recharts does not see their values), and the ticks given
 * spare recharts its own nice-tick search (decimal.js) at every redraw.
 */
export function valueAxis(
  max: number,
  { least = 4, decimals = 0, maxTicks = 4 }: { least?: number; decimals?: number; maxTicks?: number } = {},
): SizeAxis {
  const top = Math.max(least, Number.isFinite(max) ? max : 0);
  const raw = top / maxTicks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const unit = 10 ** -decimals;
  // A step its labels can show: 0.25 under one decimal would read "0.3", and 0.5 under none "1".
  const steps = [1, 2, 2.5, 5, 10]
    .map((m) => m * magnitude)
    .filter((s) => s >= unit - 1e-9 && Math.abs(s / unit - Math.round(s / unit)) < 1e-6);
  const step = steps.find((s) => s >= raw - 1e-9) ?? Math.max(unit, 10 * magnitude);
  const n = Math.max(1, Math.ceil(top / step - 1e-9));
  const ticks = Array.from({ length: n + 1 }, (_, i) => Number((i * step).toPrecision(12)));
  return { ticks, domain: [0, ticks[n]] };
}
