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
