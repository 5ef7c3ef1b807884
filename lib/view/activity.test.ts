import { describe, expect, it } from "vitest";
import { waitsChart, workersChart, topWaits } from "./activity";
import { tick } from "../../test/support/fixtures";

const all = { from: 0, to: 1e12 };

describe("workersChart", () => {
  it.each([
    { name: "worker mode", ticks: [tick(1, 0, { workers: { configured: 3, alive: 3, busy: 1 } })], any: true, max: 3 },
    { name: "sync mode: no workers", ticks: [tick(1, 0, { workers: { configured: 0, alive: 0, busy: 0 } })], any: false, max: 0 },
    { name: "settings not known yet", ticks: [tick(1, 0, { workers: { configured: null, alive: 2, busy: 0 } })], any: true, max: 2 },
  ])("$name", ({ ticks, any, max }) => {
    const chart = workersChart(ticks, all, 100, []);
    expect(chart.any).toBe(any);
    expect(chart.maxConfigured).toBe(max);
    expect(chart.rows[0]).toEqual({ t: 0, band: null, ...ticks[0].workers });
    expect(chart.pool).toBe(false);
  });

  it("19's pool: a band io_min_workers..io_max_workers instead of a configured line, and each launch and exit marked", () => {
    const ticks = [
      tick(1, 0, { workers: { configured: 2, max: 8, alive: 2, busy: 2 } }),
      tick(2, 100, { workers: { configured: 2, max: 8, alive: 3, busy: 3, launched: 1 } }),
      tick(3, 200, { workers: { configured: 2, max: 8, alive: 2, busy: 0, exited: 1 } }),
    ];
    const chart = workersChart(ticks, all, 100, []);
    expect(chart.pool).toBe(true);
    expect(chart.maxConfigured).toBe(8);
    expect(chart.rows[0]).toEqual({ t: 0, configured: null, band: [2, 8], alive: 2, busy: 2 });
    expect(chart.turnover).toEqual([
      { t: 100, alive: 3, launched: 1, exited: 0 },
      { t: 200, alive: 2, launched: 0, exited: 1 },
    ]);
  });
});

describe("waitsChart", () => {
  const waits = (w: Record<string, number>, seq: number) => tick(seq, seq * 100, { waits: w });

  it("ranks wait events by samples and sums the rest as other", () => {
    const ticks = [
      waits({ "IO:AioIoCompletion": 3, CPU: 1, "IO:DataFileRead": 1, "LWLock:A": 1, "LWLock:B": 1, "Lock:relation": 1 }, 1),
      waits({ "IO:AioIoCompletion": 2, CPU: 2, "Client:ClientRead": 1 }, 2),
    ];
    expect(topWaits(ticks, all)).toEqual({
      names: ["IO:AioIoCompletion", "CPU", "Client:ClientRead", "IO:DataFileRead", "LWLock:A"],
      rest: true,
    });
    const chart = waitsChart(ticks, all, 100, []);
    expect(chart.series.map((s) => s.name)).toEqual([
      "IO:AioIoCompletion",
      "CPU",
      "Client:ClientRead",
      "IO:DataFileRead",
      "LWLock:A",
      "other",
    ]);
    expect(chart.rows[0]).toEqual({ t: 100, w0: 3, w1: 1, w2: 0, w3: 1, w4: 1, w_other: 2 });
    expect(chart.rows[1]).toEqual({ t: 200, w0: 2, w1: 2, w2: 1, w3: 0, w4: 0, w_other: 0 });
    expect(chart.max).toBe(8);
  });

  it("has no series when no backend was active", () => {
    const chart = waitsChart([tick(1, 0), tick(2, 100)], all, 100, []);
    expect(chart.series).toEqual([]);
    expect(chart.max).toBe(0);
  });

  it("ranks only what is in view", () => {
    const ticks = [waits({ "Lock:relation": 50 }, 1), waits({ CPU: 1 }, 100)];
    expect(topWaits(ticks, { from: 5000, to: 20_000 }).names).toEqual(["CPU"]);
  });
});
