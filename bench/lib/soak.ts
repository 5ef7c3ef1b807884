// The soak's figures (issue 43) from its readings (bench/phases/soak.ts):
// what the server holds after a full collection, from the window's full
// moment to the end (judged), its memory between collections beside it (its
// level is when V8 chose to collect), the event-loop delay by 5-minute
// block, and whether it all stayed flat by SOAK_GOALS.
import type { SettledMemory } from "./inspector";
import { quantile } from "./stats";

/** One reading of the server, every 30 s from the moment it was watched. */
export interface SoakReading {
  /** seconds since the viewer connected */
  s: number;
  /** VmRSS from /proc, bytes */
  rss: number | null;
  /** prom-client's nodejs_heap_size_used_bytes and _total_bytes */
  heapUsed: number | null;
  heapTotal: number | null;
  /** prom-client's event-loop delay histogram since the scrape before (it resets on each scrape), ms */
  lagP50: number | null;
  lagP99: number | null;
  lagMax: number | null;
}

/** A full collection of every isolate at one moment, then what the process held (inspector.ts). */
export interface SettledReading extends SettledMemory {
  /** seconds since the viewer connected */
  s: number;
  /** what the window held just before (GET .../window): ticks, runs, the payload's size; its contents move the live heap */
  window?: { ticks?: number; runs?: number; bytes?: number };
}

export interface SoakBlock {
  /** seconds since watched: (from, to] */
  from: number;
  to: number;
  readings: number;
  /** the median of the readings' 30 s p50s; the highest of their p99s and maxima */
  lagP50: number | null;
  lagP99: number | null;
  lagMax: number | null;
  rssMedian: number | null;
  /** the most RSS read in the block: the top of the saw-tooth between collections */
  rssMax: number | null;
  /** the least heap used read in the block: a leak raises it, a collection's timing does not */
  heapFloor: number | null;
}

export const SOAK_GOALS = {
  /** after a full collection: RSS's and the live heap's rise from the full window to the end (least squares), as a share of the first such reading */
  growth: 0.05,
  /** live heaps after collection that rise reading after reading, by more than this share in all, are a climb */
  heapClimb: 0.02,
  /** each block after the window filled against the first: p50 within 1.25x + 1 ms, p99 within 1.5x + 5 ms */
  lagP50: { ratio: 1.25, plusMs: 1 },
  lagP99: { ratio: 1.5, plusMs: 5 },
} as const;

const BLOCK_S = 300;
/** a level at a moment: the median of the readings within a minute either side */
const LEVEL_S = 60;
const MB = 1024 * 1024;

type Key = "rss" | "heapUsed" | "heapTotal";

const values = (rs: SoakReading[], pick: (r: SoakReading) => number | null): number[] =>
  rs.map(pick).filter((x): x is number => x !== null && Number.isFinite(x));
const max = (xs: number[]) => (xs.length ? Math.max(...xs) : null);
const min = (xs: number[]) => (xs.length ? Math.min(...xs) : null);

/** Least-squares slope of y over x; null with fewer than three points or no spread in x. */
export function slope(points: { x: number; y: number }[]): number | null {
  if (points.length < 3) return null;
  const mx = points.reduce((a, p) => a + p.x, 0) / points.length;
  const my = points.reduce((a, p) => a + p.y, 0) / points.length;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) ** 2;
  }
  return sxx === 0 ? null : sxy / sxx;
}

/** The median of `key` over the readings within LEVEL_S of `s`. */
export function levelAt(rs: SoakReading[], s: number, key: Key): number | null {
  return quantile(
    values(
      rs.filter((r) => r.s > s - LEVEL_S && r.s <= s + LEVEL_S),
      (r) => r[key],
    ),
    0.5,
  );
}

export function blocksOf(rs: SoakReading[], endS: number): SoakBlock[] {
  const out: SoakBlock[] = [];
  for (let from = 0; from < endS; from += BLOCK_S) {
    const to = Math.min(from + BLOCK_S, endS);
    const inside = rs.filter((r) => r.s > from && r.s <= to);
    out.push({
      from,
      to,
      readings: inside.length,
      lagP50: quantile(
        values(inside, (r) => r.lagP50),
        0.5,
      ),
      lagP99: max(values(inside, (r) => r.lagP99)),
      lagMax: max(values(inside, (r) => r.lagMax)),
      rssMedian: quantile(
        values(inside, (r) => r.rss),
        0.5,
      ),
      rssMax: max(values(inside, (r) => r.rss)),
      heapFloor: min(values(inside, (r) => r.heapUsed)),
    });
  }
  return out;
}

/** Bytes a second -> MB per 10 minutes. */
const mbPer10Min = (bytesPerS: number | null) => (bytesPerS === null ? null : (bytesPerS * 600) / MB);

/** A least-squares rise of `pick` over the readings in [fromS, toS], as a share of `level`. */
function growthOf<R extends { s: number }>(rs: R[], pick: (r: R) => number | null, fromS: number, toS: number, level: number | null) {
  const pts = rs.flatMap((r) => {
    const y = pick(r);
    return r.s >= fromS && r.s <= toS && y !== null && Number.isFinite(y) ? [{ x: r.s, y }] : [];
  });
  const perS = slope(pts);
  return { perS, mbPer10Min: mbPer10Min(perS), growth: perS === null || !level ? null : (perS * (toS - fromS)) / level };
}

/** The live heap of every isolate after a collection: the main thread's and the worker threads'. */
export const liveHeap = (r: SettledMemory) => r.heapUsed + r.workerHeapUsed;
/** What RSS holds besides V8's heaps and the mapped files: malloc (SQLite, pg's buffers, array buffers), stacks, the allocator's keep. */
export const nativeOf = (r: SettledMemory) => (r.rssAnon === null ? null : r.rssAnon - r.v8Physical);

/**
 * After each full collection from the window's full moment to the end: RSS
 * (what the machine gives the process and a collection cannot take back),
 * the live heap (a leak of objects raises it) and, for telling the two
 * apart, the memory outside V8's heaps and the heaps' own.
 */
export function settledFigure(settled: SettledReading[], windowS: number, endS: number) {
  const judged = settled.filter((r) => r.s >= windowS && r.s <= endS);
  const first = judged[0] ?? null;
  const last = judged.at(-1) ?? null;
  const growth = (pick: (r: SettledReading) => number | null) => growthOf(judged, pick, windowS, endS, first === null ? null : pick(first));
  return {
    readings: judged.length,
    first,
    last,
    rss: growth((r) => r.rss),
    liveHeap: growth(liveHeap),
    native: growth(nativeOf),
    v8Physical: growth((r) => r.v8Physical),
    liveHeapClimbs: judged.length < 3 ? null : heapClimbs(judged.map(liveHeap)),
  };
}

/** Floors that rise at every step, by more than SOAK_GOALS.heapClimb from the first to the last. */
export function heapClimbs(floors: (number | null)[]): boolean | null {
  const xs = floors.filter((x): x is number => x !== null);
  if (xs.length < 2 || xs.length !== floors.length) return null;
  const rising = xs.every((x, i) => i === 0 || x > xs[i - 1]);
  return rising && (xs[xs.length - 1] - xs[0]) / xs[0] > SOAK_GOALS.heapClimb;
}

/** Each block against the first: within the goals' ratio and margin, p50 and p99. */
export function lagHolds(blocks: SoakBlock[]): boolean | null {
  const ref = blocks[0];
  if (!ref || ref.lagP50 === null || ref.lagP99 === null) return null;
  const { lagP50: g50, lagP99: g99 } = SOAK_GOALS;
  return blocks.every(
    (b) =>
      b.lagP50 !== null &&
      b.lagP99 !== null &&
      b.lagP50 <= ref.lagP50! * g50.ratio + g50.plusMs &&
      b.lagP99 <= ref.lagP99! * g99.ratio + g99.plusMs,
  );
}

/**
 * The figure: what the process held after each full collection from the
 * window's full moment (`windowS` after watching began) to the end, judged;
 * beside it, the readings between collections: levels at the full window and
 * at the end (the last two minutes' median), their slope, the 5-minute
 * blocks. Judged only after the window filled: before that it is meant to
 * grow.
 */
export function soakFigure(rs: SoakReading[], windowS: number, endS: number, settledReadings: SettledReading[] = []) {
  const level = (s: number) => ({
    rss: levelAt(rs, s, "rss"),
    heapUsed: levelAt(rs, s, "heapUsed"),
    heapTotal: levelAt(rs, s, "heapTotal"),
  });
  const atFull = level(windowS);
  const atEnd = level(endS - LEVEL_S);
  const rss = growthOf(rs, (r) => r.rss, windowS, endS, atFull.rss);
  const heap = growthOf(rs, (r) => r.heapUsed, windowS, endS, atFull.heapUsed);
  const blocks = blocksOf(rs, endS);
  const judged = blocks.filter((b) => b.from >= windowS && b.readings > 0);
  const climbs = heapClimbs(judged.map((b) => b.heapFloor));
  const lag = judged.length >= 2 ? lagHolds(judged) : null;
  const settled = settledFigure(settledReadings, windowS, endS);
  const ok = (g: number | null) => (g === null ? null : g <= SOAK_GOALS.growth);
  const liveOk = ok(settled.liveHeap.growth);
  const verdict = {
    rss: ok(settled.rss.growth),
    heap: liveOk === null || settled.liveHeapClimbs === null ? null : liveOk && !settled.liveHeapClimbs,
    lag,
  };
  const all = Object.values(verdict);
  return {
    goals: SOAK_GOALS,
    windowS,
    endS,
    readings: rs.length,
    atFull,
    atEnd,
    settled,
    settledReadings,
    afterFull: { fromS: windowS, toS: endS, rss, heapUsed: heap, heapFloors: judged.map((b) => b.heapFloor), heapClimbs: climbs },
    blocks,
    verdict: { ...verdict, flat: all.includes(null) ? null : all.every(Boolean) },
  };
}

export type SoakFigure = ReturnType<typeof soakFigure>;
