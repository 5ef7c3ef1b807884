import { describe, expect, it } from "vitest";
import { ioDelta, toCounters } from "./io";
import type { StatIoRow } from "../../schemas/rows";

const base: StatIoRow = {
  backend_type: "client backend",
  object: "relation",
  context: "normal",
  reads: 0,
  read_bytes: 0,
  read_time: 0,
  hits: 0,
  writes: 0,
  write_bytes: 0,
  extends: 0,
  evictions: 0,
};

describe("ioDelta", () => {
  it("gives per-row deltas and totals, non-zero rows only", () => {
    const prev = toCounters([
      { ...base, reads: 100, read_bytes: 100 * 8192 },
      { ...base, context: "bulkread", reads: 5 },
    ]);
    const next = toCounters([
      { ...base, reads: 150, read_bytes: 100 * 8192 + 50 * 131072, read_time: 12.5 },
      { ...base, context: "bulkread", reads: 5 },
    ]);
    const d = ioDelta(prev, next, 2000, 1000)!;
    expect(d.rows).toHaveLength(1);
    expect(d.totals).toEqual({ reads: 50, readBytes: 50 * 131072, readTime: 12.5, hits: 0 });
    expect(d.intervalMs).toBe(1000);
  });

  it("is null when a counter went backwards (reset or restart)", () => {
    const prev = toCounters([{ ...base, reads: 100 }]);
    const next = toCounters([{ ...base, reads: 3 }]);
    expect(ioDelta(prev, next, 2000, 1000)).toBeNull();
  });

  it("ignores rows that appear for the first time", () => {
    const d = ioDelta(toCounters([]), toCounters([{ ...base, reads: 7 }]), 1, 1)!;
    expect(d.rows).toEqual([]);
  });
});
