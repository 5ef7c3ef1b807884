import { describe, expect, it } from "vitest";
import { compareSides, isPoller, MIN_CALLS, sideStats, verdict, verdictCounts, type SideSums } from "./compare";

/** Sums of `calls` calls of mean `mean` ms and standard deviation `sd` (sample). */
function sums(calls: number, mean: number, sd: number, read: number | null = null): SideSums {
  const execMs = calls * mean;
  return { calls, execMs, execSq: (calls - 1) * sd * sd + calls * mean * mean, readMs: read, blksRead: calls * 10, blksHit: 0 };
}

describe("sideStats", () => {
  it("gives back the mean and the standard deviation the sums came from", () => {
    const s = sideStats(sums(12, 15, 2, 90));
    expect(s.meanMs).toBeCloseTo(15);
    expect(s.sdMs).toBeCloseTo(2);
    expect(s.readShare).toBeCloseTo(90 / 180);
    expect(s.blocksReadPerCall).toBe(10);
  });

  it("has no spread for one call and no read share when read time is unknown", () => {
    expect(sideStats(sums(1, 15, 0))).toMatchObject({ sdMs: null, readShare: null });
  });
});

describe("verdict", () => {
  it.each([
    ["faster, outside the spread", sums(12, 100, 10), sums(15, 66, 10), "faster", "faster by 34% (12 vs 15 calls; outside the spread)"],
    ["slower, outside the spread", sums(40, 10, 1), sums(40, 12, 1), "slower", "slower by 20% (40 vs 40 calls; outside the spread)"],
    ["a difference inside the noise", sums(6, 100, 40), sums(6, 80, 40), "same", "no measurable difference (within the spread)"],
    ["outside the spread but under 5%", sums(5000, 100, 1), sums(5000, 102, 1), "same", "no measurable difference (under 5%)"],
    [
      "too few calls before",
      sums(MIN_CALLS - 1, 100, 1),
      sums(50, 10, 1),
      "too_few",
      `too few calls to tell (4 vs 50 calls; ${MIN_CALLS} a side needed)`,
    ],
    [
      "too few calls after",
      sums(50, 100, 1),
      sums(2, 10, 1),
      "too_few",
      `too few calls to tell (50 vs 2 calls; ${MIN_CALLS} a side needed)`,
    ],
  ])("%s", (_name, b, a, kind, text) => {
    const v = verdict(sideStats(b), sideStats(a));
    expect(v.kind).toBe(kind);
    expect(v.text).toBe(text);
  });

  it("gives the change of the mean, after against before", () => {
    expect(verdict(sideStats(sums(12, 100, 10)), sideStats(sums(15, 66, 10))).change).toBeCloseTo(-0.34);
  });
});

describe("compareSides", () => {
  it("keeps statements seen on both sides, the most time at stake first (calls x mean, the larger side), whatever the verdict", () => {
    const before = new Map([
      ["same", sums(10, 50, 20)],
      ["faster", sums(10, 100, 5)],
      ["slower", sums(10, 10, 1)],
      ["few", sums(2, 1000, 1)],
      ["gone", sums(10, 10, 1)],
    ]);
    const after = new Map([
      ["same", sums(10, 52, 20)],
      ["faster", sums(10, 50, 5)],
      ["slower", sums(10, 20, 1)],
      ["few", sums(20, 1000, 1)],
      ["new", sums(10, 10, 1)],
    ]);
    const rows = compareSides(before, after, (id) => `SELECT ${id}`);
    expect(rows.map((r) => [r.queryId, r.stakeMs])).toEqual([
      ["few", 20_000],
      ["faster", 1000],
      ["same", 520],
      ["slower", 200],
    ]);
    expect(rows[0].query).toBe("SELECT few");
    expect(verdictCounts(rows)).toEqual({ slower: 1, faster: 1, same: 1, too_few: 1 });
  });

  it("puts the slow scan first and housekeeping and monitoring polls at the bottom, uncounted, however busy", () => {
    const texts: Record<string, string> = {
      scan: "SELECT count(*) FROM big WHERE v % 7 = $1",
      set: "SET application_name = $1",
      begin: "BEGIN",
      poll: "SELECT count(*) FROM pg_stat_activity WHERE state = $1",
      lookup: "SELECT * FROM big WHERE id = $1",
    };
    const before = new Map([
      ["scan", sums(6, 8600, 300)],
      ["set", sums(90_000, 0.5, 0.1)],
      ["begin", sums(90_000, 0.6, 0.1)],
      ["poll", sums(50_000, 2, 0.5)],
      ["lookup", sums(2000, 0.5, 0.1)],
    ]);
    const after = new Map([
      ["scan", sums(6, 6300, 300)],
      ["set", sums(90_000, 0.5, 0.1)],
      ["begin", sums(90_000, 0.6, 0.1)],
      ["poll", sums(50_000, 2, 0.5)],
      ["lookup", sums(2000, 0.5, 0.1)],
    ]);
    const rows = compareSides(before, after, (id) => texts[id]);
    expect(rows.map((r) => r.queryId)).toEqual(["scan", "lookup", "poll", "begin", "set"]);
    expect(rows.map((r) => r.housekeeping)).toEqual([false, false, true, true, true]);
    expect(rows[0].verdict.kind).toBe("faster");
    expect(verdictCounts(rows)).toEqual({ slower: 0, faster: 1, same: 1, too_few: 0 });
  });
});

describe("isPoller", () => {
  it.each([
    ["SELECT * FROM pg_stat_activity", true],
    ["select count(*) from pg_catalog.pg_aios", true],
    ["SELECT name, setting FROM pg_settings WHERE name = $1", true],
    ["SELECT count(*) FROM orders", false],
  ])("%s -> %s", (query, poller) => {
    expect(isPoller(query)).toBe(poller);
  });
});
