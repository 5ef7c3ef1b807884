import { describe, expect, it } from "vitest";
import type { Settings } from "@/lib/schemas/settings";
import { ioSample, run, runSample, tick } from "../../test/support/fixtures";
import { liveReadRate } from "@/lib/model/window/read-rate";
import { combineLimitKb, readRateNowText, throughputChart, throughputRow } from "./throughput";

// pg_stat_io lands a statement's reads when it ends: drawn as an amount counted, never as a rate (issue 11: 2,600 MB/s spikes).
describe("throughputRow", () => {
  it.each([
    { name: "combined sequential reads", s: ioSample(1, 0, 2167, 2167 * 119 * 1024, 1000), reads: 2167, mb: (2167 * 119) / 1024, kb: 119 },
    {
      name: "over 2 s: the amount, not divided into a rate",
      s: ioSample(1, 0, 100, 100 * 8192, 2000),
      reads: 100,
      mb: (100 * 8) / 1024,
      kb: 8,
    },
    { name: "no reads: nothing drawn, size unknown", s: ioSample(1, 0, 0, 0), reads: null, mb: null, kb: null },
  ])("$name", ({ s, reads, mb, kb }) => {
    const row = throughputRow(s);
    expect(row.reads).toBe(reads);
    if (mb === null) expect(row.mbCounted).toBeNull();
    else expect(row.mbCounted).toBeCloseTo(mb);
    if (kb === null) expect(row.avgReadKb).toBeNull();
    else expect(row.avgReadKb).toBeCloseTo(kb);
  });
});

describe("liveReadRate", () => {
  it("sums readBlocksPerSec x block_size over running scans only", () => {
    const runs = [
      run({ id: "a", endedAt: null, readBlocksPerSec: 40_000 }),
      run({ id: "b", endedAt: null, readBlocksPerSec: 2_000 }),
      run({ id: "c", endedAt: 5000, readBlocksPerSec: 90_000 }),
      run({ id: "d", endedAt: null, readBlocksPerSec: null }),
    ];
    expect(liveReadRate(runs, 8192)).toEqual({ bytesPerSec: 42_000 * 8192, scans: 2 });
    expect(liveReadRate([], 8192)).toEqual({ bytesPerSec: 0, scans: 0 });
  });

  it("says the reads in flight of the header's sample that no rate covers, not that nothing reads", () => {
    const fmt = (b: number) => `${b / 8192} blocks/s`;
    const rated = run({ id: "r", endedAt: null, readBlocksPerSec: 100 });
    const starting = run({ id: "s", endedAt: null, readBlocksPerSec: null });
    const sample = (inFlight: number, runs: [string, number][]) =>
      tick(9, 9000, { aio: { inFlight }, runs: runs.map(([id, n]) => runSample(id, "aio", n)) });
    expect(readRateNowText([], null, 8192, fmt)).toBe("no sample yet");
    expect(readRateNowText([], sample(0, []), 8192, fmt)).toBe("no read in flight");
    // The header's "1 sync": named here too, not "no read in flight" beside it.
    expect(readRateNowText([], tick(9, 9000, { aio: { inFlight: 0, sync: 1 } }), 8192, fmt)).toBe(
      "no async read in flight (1 synchronous, no rate)",
    );
    expect(readRateNowText([rated], sample(0, [["r", 0]]), 8192, fmt)).toBe("≈ 100 blocks/s (1 scan)");
    // The rated scan's own reads are in its rate; the others are said apart.
    expect(
      readRateNowText(
        [rated, starting],
        sample(3, [
          ["r", 2],
          ["s", 1],
        ]),
        8192,
        fmt,
      ),
    ).toBe("≈ 100 blocks/s (1 scan); 1 read in flight, no rate yet");
    // A run the runs' state has not named yet (it is sent twice a second): its reads still count.
    expect(readRateNowText([], sample(2, [["new", 2]]), 8192, fmt)).toBe("2 reads in flight, no rate yet");
    // An ended run's rate is not live.
    expect(readRateNowText([run({ id: "e", endedAt: 5, readBlocksPerSec: 100 })], sample(1, [["x", 1]]), 8192, fmt)).toBe(
      "1 read in flight, no rate yet",
    );
    // pg_aios not read in this sample: nothing is said of reads in flight.
    expect(readRateNowText([], { ...tick(9, 9000), aio: null }, 8192, fmt)).toBe("no rate (pg_aios not read this sample)");
    expect(readRateNowText([rated], { ...tick(9, 9000), aio: null }, 8192, fmt)).toBe("≈ 100 blocks/s (1 scan)");
  });

  it("draws the estimate as the rate line", () => {
    const chart = throughputChart(
      [],
      [
        { t: 1000, bytesPerSec: 300 * 1024 * 1024, scans: 1 },
        { t: 2000, bytesPerSec: 0, scans: 0 },
      ],
      { from: 0, to: 5000 },
      [],
    );
    expect(chart.live.map((r) => r.mbPerSec)).toEqual([300, 0]);
    expect(chart.liveSince).toBe(1000);
  });
});

describe("throughputChart", () => {
  it("averages the read size over the view, weighted by reads", () => {
    const chart = throughputChart(
      [ioSample(1, 1000, 10, 10 * 131_072), ioSample(2, 2000, 30, 30 * 8192), ioSample(3, 3000, 0, 0)],
      [],
      { from: 0, to: 5000 },
      [],
    );
    expect(chart.anyReads).toBe(true);
    expect(chart.avgReadKb).toBeCloseTo((10 * 128 + 30 * 8) / 40);
    expect(chart.rows).toHaveLength(3);
  });

  it("keeps the dots of amounts landing few (docs/CHARTS.md rule 5), only where reads landed", () => {
    const io = Array.from({ length: 900 }, (_, i) => ioSample(i + 1, i * 1000, i % 3 ? 10 : 0, i % 3 ? 10 * 131_072 : 0));
    const chart = throughputChart(io, [], { from: 0, to: 900_000 }, []);
    expect(chart.counted.length).toBeLessThanOrEqual(110);
    expect(chart.counted.every((r) => r.mbCounted !== null)).toBe(true);
    expect(chart.rows.length).toBeGreaterThan(chart.counted.length);
  });

  it("breaks the line across an outage", () => {
    const chart = throughputChart(
      [ioSample(1, 1000, 1, 8192), ioSample(2, 2000, 1, 8192), ioSample(3, 60_000, 1, 8192)],
      [],
      { from: 0, to: 60_000 },
      [],
    );
    expect(chart.rows.map((r) => r.reads)).toEqual([1, 1, null, 1]);
  });
});

describe("combineLimitKb", () => {
  const blocks = (setting: string) => ({ setting, unit: "8kB", source: "default", pendingRestart: false, display: "", enumvals: null });
  it.each<{ name: string; settings: Settings; kb: number | null }>([
    { name: "the limit in blocks", settings: { io_combine_limit: blocks("16") }, kb: 128 },
    { name: "capped by io_max_combine_limit", settings: { io_combine_limit: blocks("32"), io_max_combine_limit: blocks("16") }, kb: 128 },
    { name: "unknown", settings: {}, kb: null },
  ])("$name", ({ settings, kb }) => expect(combineLimitKb(settings)).toBe(kb));
});
