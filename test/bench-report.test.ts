// The bench's table: figure 9's rows and verdicts from a run's results, and
// a results file of an older shape still renders (as "not measured").
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { rows } from "../bench/lib/report";
import { sizeRows, sizeTable } from "../bench/lib/report-sizes";

const span = (msPerSecond: number, waitEventsPerSecond: number) => ({
  msPerSecond,
  waitEventsPerSecond,
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
    { maxConnections: 100, ioMaxConcurrency: 16, idle: span(0.8, 10), scans: span(1.9, 10), bare: { aiosCount: { meanMs: 0.19, pgbenchLatencyMs: 0.3 }, activityCount: { meanMs: 0.14 } } },
    { maxConnections: 1000, ioMaxConcurrency: 16, idle: span(0.9, 10), scans: span(5.2, 10) },
    { maxConnections: 1000, ioMaxConcurrency: 64, idle: span(0.9, 9.2), scans: span(4, 10) },
    { maxConnections: 100, ioMaxConcurrency: 64, error: "could not start" },
  ],
};

describe("figure 9 in the report", () => {
  it("gives each size its verdict: within the budget and at >= 9.5 wait events a second, idle and during scans", () => {
    const r = sizeRows(fig9);
    expect(r.slice(0, 4).map((x) => x.verdict)).toEqual(["met", "MISSED", "MISSED", "not measured"]);
    expect(r[0].measured).toContain("0.800 / 1.900 ms/s");
    expect(r[3].measured).toContain("could not start");
    expect(r[4].measured).toContain("100 x 16: 95.0% (19 of 20)");
    expect(r[5].measured).toContain("100 x 16: 0.190 / 0.140 ms");
    expect(r[5].what).toContain("-R 10");
  });

  it("has a table of its own, one line a size, the page's figures beside", () => {
    const t = sizeTable(fig9).split("\n");
    expect(t.filter((l) => l.startsWith("| 1") && !l.startsWith("| max"))).toHaveLength(4);
    expect(t.find((l) => l.startsWith("| 100 x 16 "))).toContain("| 1.90 (1.71) |");
  });

  it("says not measured when the figure is missing", () => {
    expect(sizeRows({}).map((x) => x.verdict)).toEqual(["not measured"]);
    expect(sizeTable({})).toBe("");
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
