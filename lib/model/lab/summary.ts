// The lab's table (pure): per value of the lever (an io_method, or a number
// of io workers...) the median of its cold runs with the spread beside it
// (min-max, as the write-ups gave it), read wait and read share, and each
// value against the first.
import type { LabLever } from "../../schemas/enums";
import type { LabMethodSummary, LabRun, LabScanIo, LabVersus } from "../../schemas/lab";
import { valueLabel } from "../../schemas/levers";

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const medianOrNull = (xs: (number | null)[]): number | null => {
  const known = xs.filter((x): x is number => x !== null);
  return known.length ? median(known) : null;
};

/** 19's EXPLAIN (IO) per method: the median of each figure over its runs (the highest max distance); null when no run has them. */
export function summarizeIo(runs: readonly LabRun[]): LabScanIo | null {
  const ios = runs.map((r) => r.io).filter((x): x is LabScanIo => !!x);
  if (!ios.length) return null;
  return {
    node: ios[0].node,
    prefetchAvg: median(ios.map((x) => x.prefetchAvg)),
    prefetchMax: Math.max(...ios.map((x) => x.prefetchMax)),
    capacity: median(ios.map((x) => x.capacity)),
    ioCount: median(ios.map((x) => x.ioCount)),
    ioWaits: median(ios.map((x) => x.ioWaits)),
    ioSizeBlocks: medianOrNull(ios.map((x) => x.ioSizeBlocks)),
    inProgress: medianOrNull(ios.map((x) => x.inProgress)),
  };
}

const known = (xs: (number | null)[]): number[] | null => (xs.every((x) => x !== null) ? (xs as number[]) : null);

/** The value a run or a row is of: the lever's, or its io_method in the io_method lab. */
export const valueOf = (x: { value?: string; method: string }): string => x.value ?? x.method;

/** "34% faster than sync (outside the spread)": the medians, and whether the min-max ranges overlap. */
export function versus(base: LabMethodSummary, m: LabMethodSummary, lever: LabLever = "io_method"): LabVersus {
  const change = (m.medianMs - base.medianMs) / base.medianMs;
  const outside = m.maxMs < base.minMs || m.minMs > base.maxMs;
  const pct = Math.round(Math.abs(change) * 100);
  const than = valueLabel(lever, valueOf(base));
  const how = pct === 0 ? `as fast as ${than}` : `${pct}% ${change < 0 ? "faster" : "slower"} than ${than}`;
  return { change, outside, text: `${how} (${outside ? "outside" : "within"} the spread)` };
}

/** One row per value that has runs, in the order asked for. */
export function summarize(runs: readonly LabRun[], values: readonly string[], lever: LabLever = "io_method"): LabMethodSummary[] {
  const rows: LabMethodSummary[] = [];
  for (const value of values) {
    const mine = runs.filter((r) => valueOf(r) === value);
    if (mine.length === 0) continue;
    const times = mine.map((r) => r.executionMs);
    const waits = known(mine.map((r) => r.readWaitMs));
    const shares = known(mine.map((r) => r.readShare));
    rows.push({
      method: mine[0].method,
      ...(mine[0].value === undefined ? {} : { value }),
      runs: mine.length,
      medianMs: median(times),
      minMs: Math.min(...times),
      maxMs: Math.max(...times),
      readWaitMs: waits ? median(waits) : null,
      readShare: shares ? median(shares) : null,
      blocksRead: median(mine.map((r) => r.sharedRead)),
      io: summarizeIo(mine),
      versus: null,
    });
  }
  return rows.map((row, i) => (i === 0 ? row : { ...row, versus: versus(rows[0], row, lever) }));
}

/** The values in turn within each round, the order moved on by one each round, so drift and position hit all alike. */
export function labOrder<T>(methods: readonly T[], rounds: number): { round: number; method: T }[] {
  const out: { round: number; method: T }[] = [];
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < methods.length; i++) out.push({ round: r + 1, method: methods[(i + r) % methods.length] });
  return out;
}
