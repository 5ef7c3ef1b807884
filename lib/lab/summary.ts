// The lab's table (pure): per io_method the median of its cold runs with the
// spread beside it (min-max, as the write-ups gave it), read wait and read
// share, and each method against the first.
import type { LabMethodSummary, LabRun, LabScanIo, LabVersus } from "../schemas/lab";
import type { IoMethod } from "../schemas/enums";

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

/** "34% faster than sync (outside the spread)": the medians, and whether the min-max ranges overlap. */
export function versus(base: LabMethodSummary, m: LabMethodSummary): LabVersus {
  const change = (m.medianMs - base.medianMs) / base.medianMs;
  const outside = m.maxMs < base.minMs || m.minMs > base.maxMs;
  const pct = Math.round(Math.abs(change) * 100);
  const how = pct === 0 ? `as fast as ${base.method}` : `${pct}% ${change < 0 ? "faster" : "slower"} than ${base.method}`;
  return { change, outside, text: `${how} (${outside ? "outside" : "within"} the spread)` };
}

/** One row per method that has runs, in the order asked for. */
export function summarize(runs: readonly LabRun[], methods: readonly IoMethod[]): LabMethodSummary[] {
  const rows: LabMethodSummary[] = [];
  for (const method of methods) {
    const mine = runs.filter((r) => r.method === method);
    if (mine.length === 0) continue;
    const times = mine.map((r) => r.executionMs);
    const waits = known(mine.map((r) => r.readWaitMs));
    const shares = known(mine.map((r) => r.readShare));
    rows.push({
      method,
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
  return rows.map((row, i) => (i === 0 ? row : { ...row, versus: versus(rows[0], row) }));
}

/** The methods in turn within each round, the order moved on by one each round, so drift and position hit all alike. */
export function labOrder<T>(methods: readonly T[], rounds: number): { round: number; method: T }[] {
  const out: { round: number; method: T }[] = [];
  for (let r = 0; r < rounds; r++) for (let i = 0; i < methods.length; i++) out.push({ round: r + 1, method: methods[(i + r) % methods.length] });
  return out;
}
