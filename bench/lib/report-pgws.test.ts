import { describe, expect, it } from "vitest";
import { fig12Table } from "./report-pgws";

const side = (sampleMs: number, ms: number, samples: number, fromProfile: number) => ({
  msPerSecond: ms,
  worst20s: { msPerSecond: ms + 0.2, from: 0, seconds: 20 },
  sampleMs,
  pollsPerSecond: 1000 / sampleMs,
  scans: 39,
  runs: 38,
  scansOver100ms: 34,
  runsOver100ms: 34,
  fromProfile,
  scanMsP50: 202.8,
  samplesPerScanSecond: samples,
  readShare: 0.07,
  verdicts: { async: 35, cpu: 3 },
});

describe("fig12Table", () => {
  it("writes one row a collector: its cadence, server time, samples a second and the bench's scans it has a run of", () => {
    const table = fig12Table({
      label: "100 x 47",
      seconds: 40.01,
      sides: { ext: side(250, 2.181, 99.41, 8), polls: side(100, 3.034, 12.27, 0) },
    });
    expect(table.split("\n")).toEqual([
      "| 100 x 47, 40 s, 39 scans (median 203 ms) | polls every | server ms/s | worst 20 s | samples a second | runs of the scans (of those ≥ 100 ms) | from the profile | async | read share |",
      "|---|---|---|---|---|---|---|---|---|",
      "| pg_wait_sampling as shipped (polls at 4/s, runs from the profile) | 250 ms | 2.18 | 2.38 | 99.4 | 38 of 39 (34 of 34) | 8 | 35 | 0.070 |",
      "| polls alone at 10/s | 100 ms | 3.03 | 3.23 | 12.3 | 38 of 39 (34 of 34) | 0 | 35 | 0.070 |",
    ]);
  });
});
