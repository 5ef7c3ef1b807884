// The soak's arithmetic: levels, slopes, 5-minute blocks and the verdicts
// of bench/lib/soak.ts, from readings made up for each case.
import { describe, expect, it } from "vitest";
import { soakTable } from "./report-soak";
import { blocksOf, heapClimbs, lagHolds, levelAt, slope, soakFigure, type SettledReading, type SoakReading } from "./soak";

const MB = 1024 * 1024;

/** A reading every 30 s up to `endS`, memory and delay given by functions of the time. */
function readings(
  endS: number,
  rssMb: (s: number) => number,
  heapMb: (s: number) => number,
  lag: (s: number) => [number, number] = () => [10.5, 20],
): SoakReading[] {
  const out: SoakReading[] = [];
  for (let s = 30; s <= endS; s += 30) {
    const [p50, p99] = lag(s);
    out.push({
      s,
      rss: rssMb(s) * MB,
      heapUsed: heapMb(s) * MB,
      heapTotal: (heapMb(s) + 20) * MB,
      lagP50: p50,
      lagP99: p99,
      lagMax: p99 + 5,
    });
  }
  return out;
}

/** A full collection every 5 minutes from 15 minutes to `endS`: RSS and the main thread's live heap given by functions of the time. */
function settled(endS: number, rssMb: (s: number) => number, liveMb: (s: number) => number): SettledReading[] {
  const out: SettledReading[] = [];
  for (let s = 900; s <= endS; s += 300)
    out.push({
      s,
      rss: rssMb(s) * MB,
      rssAnon: (rssMb(s) - 70) * MB,
      heapUsed: liveMb(s) * MB,
      heapTotal: (liveMb(s) + 5) * MB,
      external: 7 * MB,
      arrayBuffers: MB,
      workerHeapUsed: 5 * MB,
      workerHeapTotal: 6 * MB,
      workers: 1,
      v8Physical: (liveMb(s) + 11) * MB,
    });
  return out;
}
const held = (x: number) => () => x;

/** Fills for the window's 15 minutes, then holds, with a GC's saw-tooth of +-8 MB. */
const filling = (base: number, top: number) => (s: number) => Math.min(top, base + ((top - base) * s) / 900) + (s % 90 === 0 ? -8 : 8);

describe("slope and levels", () => {
  it("fits a line by least squares and leaves too few points unjudged", () => {
    expect(slope([0, 1, 2, 3].map((x) => ({ x, y: 2 * x + 1 })))).toBeCloseTo(2);
    expect(
      slope([
        { x: 0, y: 1 },
        { x: 1, y: 2 },
      ]),
    ).toBeNull();
    expect(slope([1, 1, 1].map((x) => ({ x, y: x })))).toBeNull();
  });

  it("takes a moment's level as the median of the readings a minute either side", () => {
    const rs = readings(
      1800,
      (s) => (s === 900 ? 500 : 100),
      () => 50,
    );
    expect(levelAt(rs, 900, "rss")).toBe(100 * MB);
    expect(levelAt(rs, 5000, "rss")).toBeNull();
  });
});

describe("blocks", () => {
  it("cuts 5-minute blocks: the median of the p50s, the highest p99 and floor of the heap", () => {
    const rs = readings(
      600,
      () => 100,
      (s) => 40 + s / 30,
      (s) => [s === 60 ? 30 : 10, s === 90 ? 80 : 20],
    );
    const [a, b] = blocksOf(rs, 600);
    expect(a).toMatchObject({
      from: 0,
      to: 300,
      readings: 10,
      lagP50: 10,
      lagP99: 80,
      lagMax: 85,
      rssMedian: 100 * MB,
      heapFloor: 41 * MB,
    });
    expect(b).toMatchObject({ from: 300, to: 600, readings: 10, lagP50: 10, lagP99: 20, heapFloor: 51 * MB });
  });

  it("calls heap floors a climb only when they rise at every step and by more than the goal's share", () => {
    expect(heapClimbs([100, 101, 103])).toBe(true);
    expect(heapClimbs([100, 100.5, 101])).toBe(false);
    expect(heapClimbs([100, 105, 104])).toBe(false);
    expect(heapClimbs([100, null, 104])).toBeNull();
  });

  it("holds each block's delay against the first block's, with its margin", () => {
    const b = (lagP50: number, lagP99: number) => ({
      from: 0,
      to: 300,
      readings: 10,
      lagP50,
      lagP99,
      lagMax: lagP99,
      rssMedian: 0,
      rssMax: 0,
      heapFloor: 0,
    });
    expect(lagHolds([b(10, 20), b(13.5, 35), b(11, 20)])).toBe(true);
    expect(lagHolds([b(10, 20), b(14, 20)])).toBe(false);
    expect(lagHolds([b(10, 20), b(10, 36)])).toBe(false);
    expect(lagHolds([])).toBeNull();
  });
});

describe("soakFigure", () => {
  it("calls a server flat that fills its window and then holds", () => {
    const f = soakFigure(readings(1800, filling(120, 200), filling(40, 90)), 900, 1800, settled(1800, held(140), held(45)));
    expect(f.verdict).toEqual({ rss: true, heap: true, lag: true, flat: true });
    // the median of a minute either side, inside the saw-tooth
    expect(Math.abs(f.atFull.rss! / MB - 200)).toBeLessThanOrEqual(8);
    expect(Math.abs(f.afterFull.rss.mbPer10Min!)).toBeLessThan(2);
    expect(f.blocks.map((b) => b.from)).toEqual([0, 300, 600, 900, 1200, 1500]);
    expect(f.settled).toMatchObject({ readings: 4, liveHeapClimbs: false });
    expect(f.settled.liveHeap.growth).toBeCloseTo(0);
  });

  it("does not judge the saw-tooth between collections: its top rising while what a collection leaves holds is V8 collecting later", () => {
    // the 2026-12-06 soak: RSS between collections +10% from 15 to 30 minutes, heap floors flat
    const later = (s: number) => filling(120, 188)(s) + Math.max(0, s - 900) / 45;
    const f = soakFigure(readings(1800, later, filling(40, 52)), 900, 1800, settled(1800, held(132), held(39)));
    expect(f.afterFull.rss.growth).toBeGreaterThan(0.05);
    expect(f.verdict).toEqual({ rss: true, heap: true, lag: true, flat: true });
  });

  it("misses on objects kept alive once the window is full, whatever the saw-tooth", () => {
    const leak = (s: number) => Math.max(0, s - 900) / 60;
    const f = soakFigure(
      readings(
        1800,
        (s) => filling(120, 200)(s) + leak(s),
        (s) => filling(40, 90)(s) + leak(s),
      ),
      900,
      1800,
      settled(
        1800,
        (s) => 140 + leak(s),
        (s) => 45 + leak(s),
      ),
    );
    expect(f.settled.liveHeap.mbPer10Min).toBeCloseTo(10, 0);
    expect(f.settled.liveHeapClimbs).toBe(true);
    expect(f.verdict).toMatchObject({ rss: false, heap: false, flat: false });
  });

  it("misses on RSS a collection cannot take back (native memory, the allocator's keep) while the live heap holds", () => {
    const f = soakFigure(
      readings(1800, filling(120, 200), filling(40, 90)),
      900,
      1800,
      settled(1800, (s) => 140 + (s - 900) / 60, held(45)),
    );
    expect(f.settled.native.mbPer10Min).toBeCloseTo(10, 0);
    expect(f.settled.v8Physical.mbPer10Min).toBeCloseTo(0);
    expect(f.verdict).toMatchObject({ rss: false, heap: true, flat: false });
  });

  it("misses on an event loop that slows as the run goes on", () => {
    const f = soakFigure(
      readings(1800, filling(120, 200), filling(40, 90), (s) => [s > 1500 ? 20 : 10.5, 20]),
      900,
      1800,
      settled(1800, held(140), held(45)),
    );
    expect(f.verdict).toMatchObject({ rss: true, heap: true, lag: false, flat: false });
  });

  it("judges no memory without collections (no inspector), and nothing when the run ends before the window is full, and still renders", () => {
    expect(soakFigure(readings(1800, filling(120, 200), filling(40, 90)), 900, 1800).verdict).toEqual({
      rss: null,
      heap: null,
      lag: true,
      flat: null,
    });
    const f = soakFigure(
      readings(
        240,
        () => 100,
        () => 40,
      ),
      900,
      240,
    );
    expect(f.verdict.flat).toBeNull();
    expect(soakTable(f).join("\n")).toContain("not measured");
  });

  it("renders the collections' rows and each block's reading after one", () => {
    const collections = settled(1800, held(140), held(45)).map((r) => ({ ...r, window: { ticks: 9500, runs: 700, bytes: 3.5 * MB } }));
    const text = soakTable(soakFigure(readings(1800, filling(120, 200), filling(40, 90)), 900, 1800, collections)).join("\n");
    expect(text).toContain("| RSS | 140.0 MB | 140.0 MB | 0.0 MB / 10 min (+0.0%) | <= +5% | met |");
    expect(text).toContain("| 10-15 | ");
    expect(text).toMatch(/\| 25-30 \(judged\) \| .* \| 140\.0 MB \/ 50\.0 MB \(window: 9500 ticks, 700 runs, 3\.5 MB\) \|/);
  });
});
