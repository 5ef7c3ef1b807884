import { describe, expect, it } from "vitest";
import type { StatStatementsRow } from "../../schemas/rows";
import { intervalDeltas } from "./deltas";

const row = (queryid: string, calls: number, exec: number, sq: number, read: number, blks: number): StatStatementsRow => ({
  queryid,
  calls,
  total_exec_time: exec,
  exec_time_sq: sq,
  read_time: read,
  shared_blks_read: blks,
  shared_blks_hit: 1,
  own: false,
  own_calls: 0,
  own_exec_time: 0,
});

describe("intervalDeltas", () => {
  const before = new Map([
    ["a", row("a", 10, 100, 1200, 40, 500)],
    ["b", row("b", 5, 50, 600, 0, 0)],
  ]);

  it("keeps what each queryid did between two reads, and skips those that did not run", () => {
    const d = intervalDeltas(before, [row("a", 12, 130, 1700, 50, 600), row("b", 5, 50, 600, 0, 0)], true);
    expect(d).toEqual([{ queryid: "a", calls: 2, execMs: 30, execSq: 500, readMs: 10, blksRead: 100, blksHit: 0 }]);
  });

  it("takes a queryid new since the last read whole", () => {
    expect(intervalDeltas(before, [row("c", 3, 9, 27, 1, 2)], true)).toEqual([
      { queryid: "c", calls: 3, execMs: 9, execSq: 27, readMs: 1, blksRead: 2, blksHit: 1 },
    ]);
  });

  it("takes an entry whose counters went down (deallocated, or reset) as new", () => {
    expect(intervalDeltas(before, [row("a", 2, 20, 200, 5, 9)], true)[0]).toMatchObject({
      calls: 2,
      execMs: 20,
      execSq: 200,
      readMs: 5,
      blksRead: 9,
    });
  });

  it("says read time is unknown with track_io_timing off, or blocks read in no time", () => {
    expect(intervalDeltas(before, [row("a", 12, 130, 1700, 50, 600)], false)[0].readMs).toBeNull();
    expect(intervalDeltas(before, [row("a", 12, 130, 1700, 40, 600)], true)[0].readMs).toBeNull();
    // No block read: zero read time is a figure.
    expect(intervalDeltas(before, [row("a", 12, 130, 1700, 40, 500)], true)[0].readMs).toBe(0);
  });
});
