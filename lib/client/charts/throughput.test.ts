import { describe, expect, it } from "vitest";
import type { Settings } from "@/lib/schemas/settings";
import { ioSample } from "../../../test/support/fixtures";
import { combineLimitKb, throughputChart, throughputRow } from "./throughput";

describe("throughputRow", () => {
  it.each([
    { name: "combined sequential reads", s: ioSample(1, 0, 2167, 2167 * 119 * 1024, 1000), reads: 2167, mb: (2167 * 119) / 1024, kb: 119 },
    { name: "over 2 s", s: ioSample(1, 0, 100, 100 * 8192, 2000), reads: 50, mb: (50 * 8) / 1024, kb: 8 },
    { name: "no reads: size unknown, not zero", s: ioSample(1, 0, 0, 0), reads: 0, mb: 0, kb: null },
  ])("$name", ({ s, reads, mb, kb }) => {
    const row = throughputRow(s);
    expect(row.readsPerSec).toBeCloseTo(reads);
    expect(row.mbPerSec).toBeCloseTo(mb);
    if (kb === null) expect(row.avgReadKb).toBeNull();
    else expect(row.avgReadKb).toBeCloseTo(kb);
  });
});

describe("throughputChart", () => {
  it("averages the read size over the view, weighted by reads", () => {
    const chart = throughputChart([ioSample(1, 1000, 10, 10 * 131_072), ioSample(2, 2000, 30, 30 * 8192), ioSample(3, 3000, 0, 0)], { from: 0, to: 5000 }, []);
    expect(chart.anyReads).toBe(true);
    expect(chart.avgReadKb).toBeCloseTo((10 * 128 + 30 * 8) / 40);
    expect(chart.rows).toHaveLength(3);
  });

  it("breaks the line across an outage", () => {
    const chart = throughputChart([ioSample(1, 1000, 1, 8192), ioSample(2, 2000, 1, 8192), ioSample(3, 60_000, 1, 8192)], { from: 0, to: 60_000 }, []);
    expect(chart.rows.map((r) => r.readsPerSec)).toEqual([1, 1, null, 1]);
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
