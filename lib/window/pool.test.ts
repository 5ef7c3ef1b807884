import { describe, expect, it } from "vitest";
import { WorkerTurnover } from "./pool";

describe("WorkerTurnover", () => {
  it("says which io workers were launched or exited since the last sample, and counts every one since the start", () => {
    const t = new WorkerTurnover();
    expect(t.next([10, 11])).toEqual({});
    expect(t.next([10, 11, 12, 13])).toEqual({ launched: 2 });
    expect(t.next([10, 11, 12])).toEqual({ exited: 1 });
    expect(t.next([10, 11, 12])).toEqual({});
    expect(t.next([10, 14])).toEqual({ launched: 1, exited: 2 });
    expect([t.launchedTotal, t.exitedTotal]).toEqual([3, 3]);
  });
});
