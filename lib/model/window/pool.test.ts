import { describe, expect, it } from "vitest";
import { WorkerTurnover } from "./pool";

describe("WorkerTurnover", () => {
  it("says which io workers were launched or exited since the last sample, and counts every one since the start", () => {
    const t = new WorkerTurnover();
    expect(t.next([10, 11], 100)).toEqual({});
    expect(t.next([10, 11, 12, 13], 200)).toEqual({ launched: 2 });
    expect(t.firstExitAt).toBeNull();
    expect(t.next([10, 11, 12], 300)).toEqual({ exited: 1 });
    expect(t.next([10, 11, 12], 400)).toEqual({});
    expect(t.next([10, 14], 500)).toEqual({ launched: 1, exited: 2 });
    expect([t.launchedTotal, t.exitedTotal]).toEqual([3, 3]);
    expect(t.firstExitAt).toBe(300);
  });

  it("after a new server start compares with nothing: its workers are not launches, the old server's not exits", () => {
    const t = new WorkerTurnover();
    t.next([10, 11, 12], 100);
    t.next([10, 11], 200);
    t.forget();
    expect(t.next([20, 21], 300)).toEqual({});
    expect(t.firstExitAt).toBeNull();
    expect([t.launchedTotal, t.exitedTotal]).toEqual([0, 1]);
  });
});
