import { describe, expect, it } from "vitest";
import { deriveSample } from "./derive";
import type { ActivityRow, AioHandle } from "./rows";
import { RunStore, verdictOf } from "./runs";

function scan(pid: number, wait: [string | null, string | null], handles: AioHandle[] | null): ActivityRow {
  return { pid, leader_pid: null, backend_type: "client backend", state: "active", wait_event_type: wait[0], wait_event: wait[1], query_id: "7", query_start_ms: 1000, datname: "db", usename: "u", query: "select count(*) from t", handles };
}
const asyncHandle = (last: number): AioHandle => ["SUBMITTED", "readv", 131072, false, `blocks ${last - 15}..${last} in file "base/5/100"`];

describe("RunStore", () => {
  const lookup = (dbOid: number, filenode: number) => ({ name: "public.t", dbOid, filenode, blocks: 1000 });

  it("accumulates a scan's samples, progress and verdict, and ends it", () => {
    const store = new RunStore(lookup);
    const samples: ActivityRow[][] = [
      [scan(10, ["IO", "AioIoCompletion"], [asyncHandle(99), asyncHandle(115)])],
      [scan(10, [null, null], [asyncHandle(499)])],
      [scan(10, ["IO", "AioIoCompletion"], null)],
      [],
    ];
    samples.forEach((rows, i) => store.observe(2000 + i * 100, deriveSample(2000 + i * 100, rows, 3).runs));
    const [run] = store.list();
    expect(run).toMatchObject({
      id: "10:1000",
      samples: 3,
      ioWaitSamples: 2,
      aioWaitSamples: 2,
      cpuSamples: 1,
      aioSamples: 2,
      syncSamples: 0,
      maxInFlight: 2,
      sumInFlight: 3,
      verdict: "async",
      endedAt: 2300,
      progress: 0.5,
      progressRelation: "public.t",
    });
    expect(run.relations.map((r) => r.name)).toEqual(["public.t"]);
  });

  it("keeps a run per pid and query start", () => {
    const store = new RunStore(lookup);
    store.observe(1, deriveSample(1, [scan(10, [null, null], null)], 0).runs);
    store.observe(2, deriveSample(2, [{ ...scan(10, [null, null], null), query_start_ms: 1500 }], 0).runs);
    const runs = store.list();
    expect(runs.map((r) => [r.id, r.endedAt])).toEqual([
      ["10:1500", null],
      ["10:1000", 2],
    ]);
  });
});

describe("verdictOf", () => {
  it.each([
    [{ aioSamples: 1, aioWaitSamples: 0, readWaitSamples: 5, syncSamples: 5 }, "async"],
    [{ aioSamples: 0, aioWaitSamples: 1, readWaitSamples: 0, syncSamples: 0 }, "async"],
    [{ aioSamples: 0, aioWaitSamples: 0, readWaitSamples: 3, syncSamples: 3 }, "sync"],
    [{ aioSamples: 0, aioWaitSamples: 0, readWaitSamples: 0, syncSamples: 1 }, "sync"],
    [{ aioSamples: 0, aioWaitSamples: 0, readWaitSamples: 0, syncSamples: 0 }, "cpu"],
  ] as const)("%o -> %s", (run, want) => {
    expect(verdictOf(run)).toBe(want);
  });
});
