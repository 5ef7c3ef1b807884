export function quantile(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function mean(values: number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A share as a percentage with two decimals: 0.98765 -> 98.77. */
export const pct = (x: number) => Math.round(x * 10000) / 100;

/** Three decimals (ms figures), null for no value. */
export const r3 = (x: number | null) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 1000) / 1000);

/** Five decimals, for CPU shares: 0.00123 = 0.123% of a core; null for no value. */
export const r5 = (x: number | null) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 100000) / 100000);
