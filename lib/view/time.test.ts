import { describe, expect, it } from "vitest";
import { bucketWidth, timeTicks, viewDomain } from "./time";

describe("timeTicks", () => {
  it.each([
    { name: "1 minute -> every 10 s", from: 1_000_000_003, to: 1_000_060_003, max: 6, step: 10_000, count: 6 },
    { name: "15 minutes -> every 5 min", from: 0, to: 900_000, max: 6, step: 300_000, count: 4 },
    { name: "5 s -> every second", from: 500, to: 5500, max: 6, step: 1000, count: 5 },
  ])("$name", ({ from, to, max, step, count }) => {
    const ticks = timeTicks(from, to, max);
    expect(ticks).toHaveLength(count);
    for (const t of ticks) {
      expect(t % step).toBe(0);
      expect(t).toBeGreaterThanOrEqual(from);
      expect(t).toBeLessThanOrEqual(to);
    }
  });

  it("keeps the same ticks when the window slides a little", () => {
    const a = timeTicks(100_000, 160_000);
    const b = timeTicks(100_500, 160_500);
    expect(b.filter((t) => t <= 160_000)).toEqual(a.filter((t) => t >= 100_500));
  });

  it("is empty for an empty range", () => expect(timeTicks(5, 5)).toEqual([]));
});

describe("bucketWidth", () => {
  it.each([
    [15 * 60_000, 300, 3000],
    [15 * 60_000, 150, 10_000],
    [60_000, 300, 200],
    [60_000, 600, 100],
    [10 * 3_600_000, 300, 2 * 60_000],
  ])("span %s / %s buckets -> %s ms", (span, max, width) => expect(bucketWidth(span, max)).toBe(width));
});

describe("viewDomain", () => {
  it("ends at the newest sample and never spans more than the window", () => {
    expect(viewDomain(1_000_000, 60_000, 900_000)).toEqual({ from: 940_000, to: 1_000_000 });
    expect(viewDomain(1_000_000, null, 900_000)).toEqual({ from: 100_000, to: 1_000_000 });
    expect(viewDomain(1_000_000, 3_600_000, 900_000)).toEqual({ from: 100_000, to: 1_000_000 });
  });
});
