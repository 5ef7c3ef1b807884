// The bench's small pure helpers: /metrics text, the stream caps of the
// 50-viewer figure, pgbench's latency line, which scans a window saw, and
// figure 9's figures for one span.
import { describe, expect, it } from "vitest";
import { metricBy, metricSamples, metricSum } from "../bench/lib/metrics-text";
import { pgbenchLatencyMs } from "../bench/lib/peers";
import { seenBy, shortScansSeen, type Run } from "../bench/lib/runs";
import type { ScanRecord } from "../bench/lib/scans";
import { counterDelta, spanFigures, spanMeetsGoals } from "../bench/lib/size-figures";
import { streamCapEnv } from "../bench/lib/stream-caps";

const METRICS = `# HELP inflight_samples_extra_total Samples taken between the slots
# TYPE inflight_samples_extra_total counter
inflight_samples_extra_total{target="bench"} 42
inflight_samples_extra_total_bogus{target="bench"} 7
inflight_target_cost_seconds_total{target="bench",statement="activity"} 0.5
inflight_target_cost_seconds_total{target="bench",statement="aios"} 0.25
inflight_target_cost_seconds_total{target="other",statement="aios"} 1
`;

describe("metrics text", () => {
  it("reads one family's samples and their labels, not a family whose name it starts", () => {
    expect(metricSamples(METRICS, "inflight_samples_extra_total")).toEqual([{ labels: { target: "bench" }, value: 42 }]);
    expect(metricSum(METRICS, "inflight_samples_extra_total")).toBe(42);
    expect(metricSum(METRICS, "inflight_target_cost_seconds_total", { target: "bench" })).toBe(0.75);
    expect(metricSum(METRICS, "inflight_nothing")).toBeNull();
    expect(metricBy(METRICS, "inflight_target_cost_seconds_total", "statement")).toEqual({ activity: 0.5, aios: 1.25 });
  });

  it("takes counters' rises by label", () => {
    expect(counterDelta({ activity: 1, aios: 2 }, { activity: 1.5, aios: 2, settings: 0.1 })).toEqual({
      activity: 0.5,
      aios: 0,
      settings: 0.1,
    });
  });
});

describe("streamCapEnv", () => {
  it("sets only the caps the server knows, each to the figure's count", () => {
    expect(streamCapEnv(["INFLIGHT_TARGETS", "INFLIGHT_BUDGET"], 60)).toEqual({});
    expect(streamCapEnv(["INFLIGHT_MAX_STREAMS", "INFLIGHT_MAX_STREAMS_PER_CLIENT"], 60)).toEqual({
      INFLIGHT_MAX_STREAMS: "60",
      INFLIGHT_MAX_STREAMS_PER_CLIENT: "60",
    });
  });
});

describe("pgbenchLatencyMs", () => {
  it("reads pgbench's average latency, or says it has none", () => {
    expect(
      pgbenchLatencyMs("number of transactions actually processed: 150\nlatency average = 0.412 ms\nrate limit schedule lag: avg 0.1 ms"),
    ).toBe(0.412);
    expect(pgbenchLatencyMs("connection failed")).toBeNull();
  });
});

const run = (over: Partial<Run>): Run => ({
  query: "",
  pid: 1,
  samples: 0,
  aioSamples: 0,
  aioWaitSamples: 0,
  readWaitSamples: 0,
  syncSamples: 0,
  cpuSamples: 0,
  startedAt: 0,
  verdict: "",
  ...over,
});
const scan = (n: number, ms: number, start: number): ScanRecord => ({
  n,
  marker: `bench-scan x-${n}`,
  table: "t",
  pid: 1,
  start,
  end: start + ms,
  ms,
  phase: "p",
});

describe("which scans a window saw", () => {
  const runs = [
    run({ query: "/* bench-scan x-1 */ SELECT", samples: 2, aioSamples: 1 }),
    run({ query: "/* bench-scan x-2 */ SELECT", samples: 1 }),
    run({ query: "/* bench-scan x-3 */ SELECT", pid: 2, aioSamples: 3 }),
  ];

  it("matches a scan by its pid and its comment", () => {
    expect(seenBy(runs, scan(1, 100, 0))).toEqual({ sampled: true, aio: true });
    expect(seenBy(runs, scan(2, 100, 0))).toEqual({ sampled: true, aio: false });
    // another pid's run with the same comment is not this scan
    expect(seenBy(runs, scan(3, 100, 0))).toEqual({ sampled: false, aio: false });
  });

  it("counts the short scans wholly inside the span", () => {
    const scans = [scan(1, 100, 1000), scan(2, 300, 2000), scan(3, 200, 3000), scan(4, 1500, 4000), scan(5, 100, 9950)];
    const seen = shortScansSeen(scans, runs, { from: 1000, to: 10_000, shortMs: 1000 });
    expect(seen).toMatchObject({ scans: 4, short: 3, seen: 1, sampled: 2, shortMsP50: 200 });
    expect(seen.share).toBeCloseTo(1 / 3);
  });
});

describe("figure 9's span", () => {
  const page = {
    budgetMsPerSecond: 5,
    msPerSecond: 2.1,
    spanS: 10,
    statements: [],
    aios: { msPerRead: 1.7, intervalMs: 500, skipped: 30 },
    note: "pg_aios read every 500 ms while backends run, not every sample",
  };
  const delta = {
    calls: 130,
    totalExecMs: 40,
    byFile: { activity: { calls: 110, totalExecMs: 15 }, aios: { calls: 20, totalExecMs: 25 } },
    statements: [],
  };

  it("gives server time, each part's cadence and the page's figures beside them", () => {
    const f = spanFigures({
      seconds: 10,
      delta,
      samples: 100,
      missed: 0,
      extraSamples: 10,
      costSeconds: { activity: 0.015, aios: 0.024 },
      page,
      backendCpu: 0.004,
    });
    expect(f).toMatchObject({
      msPerSecond: 4,
      waitEventsPerSecond: 10,
      burstPerSecond: 1,
      activityCallsPerSecond: 11,
      aiosReadsPerSecond: 2,
      aiosMeanMs: 1.25,
      metricsMsPerSecond: 3.9,
      backendCpu: 0.004,
    });
    expect(f.page).toMatchObject({ msPerSecond: 2.1, aiosIntervalMs: 500, aiosMsPerRead: 1.7 });
    expect(f.metricsByStatement).toEqual({ activity: 1.5, aios: 2.4 });
    expect(f.byStatement[0].file).toBe("aios");
  });

  it("meets its goals only within the budget and at 9.5 samples a second", () => {
    expect(spanMeetsGoals({ msPerSecond: 4, waitEventsPerSecond: 10 }, 5)).toBe(true);
    expect(spanMeetsGoals({ msPerSecond: 5.1, waitEventsPerSecond: 10 }, 5)).toBe(false);
    expect(spanMeetsGoals({ msPerSecond: 4, waitEventsPerSecond: 9.4 }, 5)).toBe(false);
    expect(spanMeetsGoals({ msPerSecond: null, waitEventsPerSecond: 10 }, 5)).toBeNull();
  });
});
