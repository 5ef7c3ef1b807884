// The bench's table: figure 9's rows and verdicts from a run's results, and
// a results file of an older shape still renders (as "not measured").
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { rows } from "../bench/lib/report";
import { fleetRows, fleetTable } from "../bench/lib/report-fleet";
import { sizeRows, sizeTable } from "../bench/lib/report-sizes";
import { timeLeftRows } from "../bench/lib/report-time-left";

const span = (msPerSecond: number, waitEventsPerSecond: number, worst20s = msPerSecond + 0.1) => ({
  msPerSecond,
  waitEventsPerSecond,
  worst20s: { msPerSecond: worst20s, from: 0, seconds: 20 },
  aiosReadsPerSecond: 2,
  aiosMeanMs: 1.5,
  burstPerSecond: 0.5,
  page: { msPerSecond: msPerSecond * 0.9, aiosIntervalMs: 500, aiosMsPerRead: 1.4 },
  shortScans: { short: 20, seen: 19, share: 0.95 },
});
const fig9 = {
  budgetMsPerSecond: 5,
  bareRate: 10,
  bareSeconds: 15,
  sizes: [
    {
      maxConnections: 100,
      ioMaxConcurrency: 16,
      idle: span(0.8, 10),
      scans: span(1.9, 10),
      bare: { aiosCount: { meanMs: 0.19, pgbenchLatencyMs: 0.3 }, activityCount: { meanMs: 0.14 } },
    },
    { maxConnections: 1000, ioMaxConcurrency: 16, idle: span(0.9, 10), scans: span(5.2, 10) },
    { maxConnections: 1000, ioMaxConcurrency: 64, idle: span(0.9, 9.2), scans: span(4, 10) },
    { maxConnections: 100, ioMaxConcurrency: 64, error: "could not start" },
    // within the budget over the whole span, not over its worst 20 s
    { maxConnections: 1000, ioMaxConcurrency: 32, idle: span(0.9, 10), scans: span(4.6, 10, 5.3) },
  ],
};

describe("figure 9 in the report", () => {
  it("gives each size its verdict: within the budget over every 20 s and at >= 9.5 wait events a second, idle and during scans", () => {
    const r = sizeRows(fig9);
    expect(r.slice(0, 5).map((x) => x.verdict)).toEqual(["met", "MISSED", "MISSED", "not measured", "MISSED"]);
    expect(r[0].measured).toContain("0.800 / 1.900 ms/s (0.90 / 2.00)");
    expect(r[3].measured).toContain("could not start");
    expect(r[4].measured).toContain("0.900 / 4.600 ms/s (1.00 / 5.30)");
    expect(r[5].measured).toContain("100 x 16: 95.0% (19 of 20)");
    expect(r[6].measured).toContain("100 x 16: 0.190 / 0.140 ms");
    expect(r[6].what).toContain("-R 10");
  });

  it("has a table of its own, one line a size, the page's figures beside", () => {
    const t = sizeTable(fig9).split("\n");
    expect(t.filter((l) => l.startsWith("| 1") && !l.startsWith("| max"))).toHaveLength(5);
    expect(t.find((l) => l.startsWith("| 100 x 16 "))).toContain("| 1.90, 2.00 (1.71) |");
  });

  it("says not measured when the figure is missing", () => {
    expect(sizeRows({}).map((x) => x.verdict)).toEqual(["not measured"]);
    expect(sizeTable({})).toBe("");
  });
});

const fleetSpan = (cpu: number, rssMb: number, loopLagP99Ms: number) => ({
  cpu,
  rssMb,
  loopLagP99Ms,
  loopLagMaxMs: loopLagP99Ms * 2,
  samplesPerSecond: 100,
  metricsBytes: 3_300_000,
  metricsScrapeMs: 300,
});
const fleetRow = (targets: number, page: object, watchedLagMs = 20) => ({
  targets,
  idle: fleetSpan(0.1, 220, 20),
  watched: fleetSpan(0.15, 280, watchedLagMs),
  page,
});

describe("figure 10 in the report", () => {
  it("judges the largest count against the goals (1 core, 1 GB, loop delay p99 50 ms, the page 15 %); the others are its scale", () => {
    const ok = fleetRows({
      rows: [fleetRow(10, { busyShare: 0.02, firstRenderMs: 900 }), fleetRow(100, { busyShare: 0.08, firstRenderMs: 2000 })],
    });
    expect(ok.map((x) => [x.goal === "(scale)", x.verdict])).toEqual([
      [true, "n/a"],
      [false, "met"],
    ]);
    expect(ok[1].measured).toBe("10.0% / 15.0%; 220 / 280 MB; 20 / 20 ms; page 8.0%");
    expect(fleetRows({ rows: [fleetRow(100, { busyShare: 0.08 }, 51)] })[0].verdict).toBe("MISSED");
    expect(fleetRows({ rows: [fleetRow(100, { busyShare: 0.16 })] })[0].verdict).toBe("MISSED");
    // the page did not load: the goals cannot be judged
    expect(fleetRows({ rows: [fleetRow(100, { error: "timeout" })] })[0]).toMatchObject({
      verdict: "not measured",
      measured: expect.stringContaining("page ? (timeout)"),
    });
    expect(fleetRows({}).map((x) => x.verdict)).toEqual(["not measured"]);
  });

  it("has a table of its own, a line a count", () => {
    const t = fleetTable({
      spanSeconds: 30,
      pageSeconds: 20,
      rows: [fleetRow(10, { busyShare: 0.02, firstRenderMs: 900 }), fleetRow(100, { busyShare: 0.08, firstRenderMs: 2000 })],
    }).split("\n");
    expect(t.find((l) => l.startsWith("| 100 "))).toBe(
      "| 100 | 10.0% / 15.0% | 220 / 280 MB | 20 (40) / 20 (40) ms | 100.0 / 100.0 | 3.30 MB, 300 / 300 ms | 2000 ms, 8.0% |",
    );
    // each target's interval and a sample's cost, where the run recorded them: why fewer samples than targets
    const slow = fleetRow(100, { busyShare: 0.08, firstRenderMs: 2000 });
    Object.assign(slow.idle, { samplesPerSecond: 36.7, sampleMsP50: 2600, activityMsP50: 5.2 });
    expect(
      fleetTable({ rows: [slow] })
        .split("\n")
        .find((l) => l.startsWith("| 100 ")),
    ).toContain("| 36.7 (2600 ms, 5.2 ms a sample) / 100.0 |");
    expect(fleetTable({})).toBe("");
  });
});

describe("the whole table", () => {
  it("renders results of an older shape without throwing, what it cannot read as not measured", () => {
    // The last run's raw figures, without what a run before figure 9 did not have.
    const old = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "bench", "results.json"), "utf8"));
    delete old.fig9;
    const r = rows(old);
    expect(r.length).toBeGreaterThan(20);
    expect(r.find((x) => x.fig === "9")?.verdict).toBe("not measured");
  });
});

describe("figure 11 (time left)", () => {
  it("one row each for scans alone and four at once, met only when both goals are", () => {
    const judged = (heldShare: number | null, medianError: number | null) => ({
      scans: 6,
      looks: 120,
      noRange: 1,
      heldShare,
      medianError,
      medianScanMs: 8000,
    });
    const r = timeLeftRows({ goals: { heldShare: 0.9, medianError: 0.15 }, alone: judged(0.93, 0.12), together: judged(0.93, 0.2) });
    expect(r.map((x) => [x.fig, x.measured, x.goal, x.verdict])).toEqual([
      ["11", "93.0%; 12.0%", ">= 90%; <= 15%", "met"],
      ["11", "93.0%; 20.0%", ">= 90%; <= 15%", "MISSED"],
    ]);
    expect(r[0].what).toMatch(
      /^time left, cold scans alone \(6 scans, median 8\.0 s; 120 looks from a quarter of each scan on, 1 with no range yet\)/,
    );
    expect(timeLeftRows({ alone: judged(null, null) })[0].verdict).toBe("not measured");
  });
});
