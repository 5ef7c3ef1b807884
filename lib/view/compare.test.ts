import { describe, expect, it } from "vitest";
import { changesText, restartLine, sideCells } from "./compare";

const change = { name: "io_method", before: "worker", after: "sync" };
const counts = (over: Partial<Record<"slower" | "faster" | "same" | "too_few", number>>) => ({
  slower: 0,
  faster: 0,
  same: 0,
  too_few: 0,
  ...over,
});
const H = 3_600_000;

describe("restartLine", () => {
  it.each([
    [counts({ slower: 3 }), "restart 2 h ago: io_method worker -> sync; 3 statements slower"],
    [counts({ slower: 1, faster: 2 }), "restart 2 h ago: io_method worker -> sync; 1 statement slower, 2 faster"],
    [counts({ faster: 1 }), "restart 2 h ago: io_method worker -> sync; 1 statement faster"],
    [counts({ same: 4, too_few: 1 }), "restart 2 h ago: io_method worker -> sync; no statement measurably different"],
    [counts({ too_few: 2 }), "restart 2 h ago: io_method worker -> sync; too few calls to tell yet"],
    [counts({}), "restart 2 h ago: io_method worker -> sync; no statement seen on both sides yet"],
    [null, "restart 2 h ago: io_method worker -> sync"],
  ])("%j", (c, want) => {
    expect(restartLine({ at: 10 * H, changes: [change], counts: c }, 12 * H)).toBe(want);
  });

  it("says when no io setting changed", () => {
    expect(changesText([])).toBe("no io setting changed");
  });
});

describe("sideCells", () => {
  it("gives the mean with its spread, and read share unknown, not 0", () => {
    expect(sideCells({ calls: 12, meanMs: 15.24, sdMs: 2.1, readShare: null, blocksReadPerCall: 8192 })).toEqual({
      calls: "12",
      mean: "15 ms ± 2.1 ms",
      readShare: "unknown",
      blocksPerCall: "8,192",
    });
  });
});
