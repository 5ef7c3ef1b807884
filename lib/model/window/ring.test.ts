import { describe, expect, it } from "vitest";
import { TimeRing } from "./ring";

describe("TimeRing", () => {
  it("keeps only items within the span of the newest", () => {
    const ring = new TimeRing<{ t: number; seq: number }>(1000, 2);
    for (let i = 0; i < 50; i++) ring.push({ t: i * 100, seq: i + 1 });
    const items = ring.toArray();
    expect(items[0].t).toBe(3900);
    expect(items.at(-1)!.t).toBe(4900);
    expect(ring.length).toBe(11);
  });

  it("stays flat in size once full", () => {
    const ring = new TimeRing<{ t: number }>(1000, 4);
    for (let i = 0; i < 10_000; i++) ring.push({ t: i * 10 });
    expect(ring.length).toBe(101);
    // capacity grew to fit one span, not the whole history
    expect((ring as unknown as { items: unknown[] }).items.length).toBeLessThanOrEqual(256);
  });

  it("returns what came after a seq by binary search", () => {
    const ring = new TimeRing<{ t: number; seq: number }>(10_000);
    for (let i = 1; i <= 20; i++) ring.push({ t: i, seq: i * 2 });
    expect(ring.since((x) => x.seq > 30).map((x) => x.seq)).toEqual([32, 34, 36, 38, 40]);
    expect(ring.since((x) => x.seq > 40)).toEqual([]);
    expect(ring.since((x) => x.seq > 0)).toHaveLength(20);
  });

  it("refuses items out of time order", () => {
    const ring = new TimeRing<{ t: number }>(1000);
    ring.push({ t: 10 });
    expect(() => ring.push({ t: 5 })).toThrow(/time order/);
  });
});
