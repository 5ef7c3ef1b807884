import { describe, expect, it } from "vitest";
import { pow2Ticks, valueAxis } from "./scale";

describe("pow2Ticks", () => {
  it.each([
    [128, [0, 32, 64, 96, 128]],
    [119, [0, 32, 64, 96, 128]],
    [640, [0, 256, 512, 768]],
    [3, [0, 1, 2, 3]],
    [0, [0, 1]],
    [Number.NaN, [0, 1]],
  ])("max %s -> %j", (max, ticks) => expect(pow2Ticks(max)).toEqual(ticks));
});

describe("valueAxis", () => {
  it("counts: whole round steps from 0, at least 0..4", () => {
    expect(valueAxis(0)).toEqual({ ticks: [0, 1, 2, 3, 4], domain: [0, 4] });
    expect(valueAxis(3.2)).toEqual({ ticks: [0, 1, 2, 3, 4], domain: [0, 4] });
    expect(valueAxis(7)).toEqual({ ticks: [0, 2, 4, 6, 8], domain: [0, 8] });
    expect(valueAxis(130)).toEqual({ ticks: [0, 50, 100, 150], domain: [0, 150] });
    expect(valueAxis(64)).toEqual({ ticks: [0, 20, 40, 60, 80], domain: [0, 80] });
  });

  it("never a step its labels cannot show", () => {
    // one decimal: 0.5, not 0.25 (which would read 0, 0.3, 0.5, 0.8, 1)
    expect(valueAxis(1, { least: 1, decimals: 1 })).toEqual({ ticks: [0, 0.5, 1], domain: [0, 1] });
    // whole MB: 0, 1, 2, 3, never 0.25 labelled "0, 0, 1, 1, 1"
    expect(valueAxis(0.3, { least: 1 })).toEqual({ ticks: [0, 1], domain: [0, 1] });
    expect(valueAxis(2.6, { least: 1 })).toEqual({ ticks: [0, 1, 2, 3], domain: [0, 3] });
    expect(valueAxis(0.05, { least: 0.01 })).toEqual({ ticks: [0, 1], domain: [0, 1] });
    for (const max of [0.07, 0.7, 1.3, 3, 9.99, 41, 999]) {
      for (const decimals of [0, 1, 2]) {
        for (const t of valueAxis(max, { least: 0.01, decimals }).ticks) expect(Number(t.toFixed(decimals))).toBe(t);
      }
    }
  });

  it("rates: decimal steps, never below the value, at most four intervals", () => {
    expect(valueAxis(0.3, { least: 0.1, decimals: 1 })).toEqual({ ticks: [0, 0.1, 0.2, 0.3], domain: [0, 0.3] });
    expect(valueAxis(216.4, { least: 1, decimals: 1 })).toEqual({ ticks: [0, 100, 200, 300], domain: [0, 300] });
    for (const max of [0.7, 3, 9.99, 41, 999, 12345]) {
      const axis = valueAxis(max, { least: 1, decimals: 1 });
      expect(axis.domain[1]).toBeGreaterThanOrEqual(max);
      expect(axis.ticks.length - 1).toBeLessThanOrEqual(4);
    }
  });
});
