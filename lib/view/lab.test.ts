import { describe, expect, it } from "vitest";
import type { LabMethodSummary } from "@/lib/schemas/lab";
import { labBars, offeredMethods } from "./lab";

describe("the lab chart", () => {
  it("draws the median with the min-max spread around it", () => {
    const s = {
      method: "sync",
      runs: 5,
      medianMs: 500,
      minMs: 480,
      maxMs: 560,
      readWaitMs: 120,
      readShare: 0.24,
      blocksRead: 8192,
      versus: null,
    } satisfies LabMethodSummary;
    expect(labBars([s])).toEqual([{ label: "sync", median: 500, spread: [20, 60], readWait: 120 }]);
    expect(labBars([{ ...s, value: "3" }], "io_workers")[0].label).toBe("io_workers = 3");
  });
  it("offers the methods of the build, in a fixed order", () => {
    expect(offeredMethods(["worker", "io_uring", "sync"])).toEqual(["sync", "worker", "io_uring"]);
    expect(offeredMethods(null)).toEqual(["sync", "worker"]);
  });
});
