import { describe, expect, it } from "vitest";
import { gapFlags, lowerBound, minMaxIndices, shapeSeries, type SeriesOptions } from "./series";

const every = (from: number, step: number, n: number) => Array.from({ length: n }, (_, i) => from + i * step);

describe("gapFlags", () => {
  it.each([
    { name: "steady 100 ms: no gap", times: every(0, 100, 20), outages: [], gaps: [] as number[] },
    { name: "a missed sample or two: no gap", times: [0, 100, 200, 450, 550, 650], outages: [], gaps: [] },
    { name: "10 s without samples: one gap", times: [...every(0, 100, 10), ...every(10_900, 100, 10)], outages: [], gaps: [10] },
    {
      name: "two outages back to back: two gaps",
      times: [...every(0, 100, 10), 5900, ...every(10_900, 100, 10)],
      outages: [],
      gaps: [10, 11],
    },
    {
      name: "idle 1 s cadence before a viewer came: no gap",
      times: [...every(0, 1000, 10), ...every(9100, 100, 10)],
      outages: [],
      gaps: [],
    },
    { name: "viewer left, cadence went to 1 s: no gap", times: [...every(0, 100, 10), ...every(1900, 1000, 10)], outages: [], gaps: [] },
    { name: "an outage between close samples: gap", times: every(0, 100, 6), outages: [{ from: 250, to: 260 }], gaps: [3] },
    { name: "an ongoing outage covers what follows", times: every(0, 100, 6), outages: [{ from: 350, to: null }], gaps: [4, 5] },
  ])("$name", ({ times, outages, gaps }) => {
    const flags = gapFlags(times, 100, outages);
    expect(flags.flatMap((g, i) => (g ? [i] : []))).toEqual(gaps);
  });
});

describe("gapFlags with a bucket width", () => {
  it("ignores a stall shorter than a bucket but never a recorded outage", () => {
    const times = [0, 100, 200, 700, 800, 900];
    expect(gapFlags(times, 100, [], 0)[3]).toBe(true);
    expect(gapFlags(times, 100, [], 1000)[3]).toBe(false);
    expect(gapFlags(times, 100, [{ from: 300, to: 400 }], 1000)[3]).toBe(true);
  });
});

describe("lowerBound", () => {
  it.each([
    [0, 0],
    [150, 2],
    [200, 2],
    [10_000, 5],
  ])("first at or after %s is index %s", (t, i) => expect(lowerBound(every(0, 100, 5), t, (x) => x)).toBe(i));
});

describe("minMaxIndices", () => {
  it("keeps the min and the max of each bucket and the newest item", () => {
    const times = every(0, 100, 10); // buckets of 500 ms: [0..4], [5..9]
    const values = [[3, 1, 4, 1, 5, 9, 2, 6, 5, 3]];
    expect(
      minMaxIndices(
        times,
        values,
        times.map(() => false),
        500,
      ),
    ).toEqual([1, 4, 5, 6, 9]);
  });

  it("does not merge a bucket across a gap", () => {
    const times = [0, 100, 200, 300];
    const values = [[5, 1, 7, 2]];
    expect(minMaxIndices(times, values, [false, false, true, false], 1000)).toEqual([0, 1, 2, 3]);
  });

  it("buckets on absolute time, so old buckets do not shift as data slides", () => {
    const a = minMaxIndices(every(1000, 100, 30), [every(0, 1, 30).map((i) => (i * 7) % 11)], new Array(30).fill(false), 1000);
    const times = every(1000, 100, 30).map((t) => t + 10_000);
    const b = minMaxIndices(times, [every(0, 1, 30).map((i) => (i * 7) % 11)], new Array(30).fill(false), 1000);
    expect(b).toEqual(a);
  });
});

describe("shapeSeries", () => {
  type P = { t: number; v: number };
  const points = (times: number[]): P[] => times.map((t, i) => ({ t, v: i % 7 }));
  const opts = (over: Partial<SeriesOptions<P>>): SeriesOptions<P> => ({
    time: (p) => p.t,
    keys: [(p) => p.v],
    domain: { from: 0, to: 1e12 },
    cadenceMs: 100,
    outages: [],
    maxPoints: 600,
    ...over,
  });
  const toRow = (p: P) => ({ t: p.t, v: p.v as number | null });
  const gapRow = (t: number) => ({ t, v: null });

  it("clips to the view and keeps every point when few", () => {
    const rows = shapeSeries(points(every(0, 100, 50)), opts({ domain: { from: 1000, to: 2000 } }), toRow, gapRow);
    expect(rows.map((r) => r.t)).toEqual(every(1000, 100, 11));
  });

  it("inserts a null row across an outage and never interpolates", () => {
    const rows = shapeSeries(points([0, 100, 200, 30_000, 30_100]), opts({}), toRow, gapRow);
    expect(rows).toEqual([
      { t: 0, v: 0 },
      { t: 100, v: 1 },
      { t: 200, v: 2 },
      { t: 15_100, v: null },
      { t: 30_000, v: 3 },
      { t: 30_100, v: 4 },
    ]);
  });

  it("draws at most ~maxPoints for 15 minutes at 10 Hz, keeping the newest point and the peaks", () => {
    const data = points(every(0, 100, 9000));
    data[4321].v = 1000;
    const rows = shapeSeries(data, opts({ domain: { from: 0, to: 900_000 } }), toRow, gapRow);
    expect(rows.length).toBeLessThanOrEqual(600);
    expect(rows.length).toBeGreaterThan(300);
    expect(rows.at(-1)).toEqual({ t: 899_900, v: 8999 % 7 });
    expect(Math.max(...rows.map((r) => r.v ?? 0))).toBe(1000);
  });

  it("keeps the gap when thinning", () => {
    const data = points([...every(0, 100, 5000), ...every(600_000, 100, 3000)]);
    const rows = shapeSeries(data, opts({ domain: { from: 0, to: 900_000 } }), toRow, gapRow);
    const nulls = rows.filter((r) => r.v === null);
    expect(nulls).toHaveLength(1);
    expect(nulls[0].t).toBeGreaterThan(499_900);
    expect(nulls[0].t).toBeLessThan(600_000);
  });
});
