import { describe, expect, it } from "vitest";
import { classifyWait, deriveSample, parseTargetDesc } from "./derive";
import type { SampledBackend } from "../../schemas/rows";

function row(partial: Partial<SampledBackend>): SampledBackend {
  return {
    pid: 1,
    leader_pid: null,
    backend_type: "client backend",
    state: "active",
    wait_event_type: null,
    wait_event: null,
    query_id: "42",
    query_start_ms: 1000,
    state_change_ms: 1000,
    datname: "db",
    usename: "u",
    query: "select 1",
    handles: null,
    ...partial,
  };
}

describe("classifyWait", () => {
  it.each([
    [null, null, "cpu"],
    ["IO", "AioIoCompletion", "aio"],
    ["IO", "AioIoUringExecution", "aio"],
    ["IO", "DataFileRead", "read"],
    ["IO", "WalWrite", "io"],
    ["LWLock", "AioWorkerSubmissionQueue", "other"],
    ["Lock", "relation", "other"],
  ] as const)("%s:%s -> %s", (type, event, want) => {
    expect(classifyWait(type, event)).toBe(want);
  });
});

describe("parseTargetDesc", () => {
  it.each([
    ['blocks 31807..31822 in file "base/5/16384"', { first: 31807, last: 31822, dbOid: 5, filenode: 16384 }],
    ['block 7 in file "base/16390/16401"', { first: 7, last: 7, dbOid: 16390, filenode: 16401 }],
    ['blocks 0..3 in file "global/1262"', { first: 0, last: 3, dbOid: 0, filenode: 1262 }],
    ["something else", null],
    [null, null],
  ])("%s", (desc, want) => {
    expect(parseTargetDesc(desc)).toEqual(want);
  });
});

describe("deriveSample", () => {
  const rows: SampledBackend[] = [
    row({
      pid: 10,
      wait_event_type: "IO",
      wait_event: "AioIoCompletion",
      handles: [
        ["SUBMITTED", "readv", 131072, false, 'blocks 0..15 in file "base/5/100"'],
        ["COMPLETED_IO", "readv", 131072, false, 'blocks 16..31 in file "base/5/100"'],
      ],
    }),
    // parallel worker of 10: its handles are folded into 10's run
    row({
      pid: 11,
      leader_pid: 10,
      backend_type: "parallel worker",
      query_start_ms: 1200,
      handles: [["SUBMITTED", "readv", 65536, false, 'blocks 40..47 in file "base/5/100"']],
    }),
    // index lookups: a pg_aios row with f_sync, waiting on DataFileRead
    row({
      pid: 20,
      query_start_ms: 2000,
      wait_event_type: "IO",
      wait_event: "DataFileRead",
      handles: [["SUBMITTED", "readv", 8192, true, 'block 3 in file "base/5/200"']],
    }),
    row({ pid: 30, backend_type: "io worker", state: null, wait_event_type: "Activity", wait_event: "IoWorkerMain" }),
    row({ pid: 31, backend_type: "io worker", state: null, wait_event_type: "IO", wait_event: "DataFileRead" }),
    row({ pid: 32, backend_type: "io worker", state: null }),
    row({ pid: 40, state: "idle in transaction", wait_event_type: "Client", wait_event: "ClientRead" }),
  ];
  const { tick, runs } = deriveSample(5000, rows, 3);

  it("counts async and synchronous handles apart", () => {
    expect(tick.aio).toEqual({
      inFlight: 3,
      bytes: 131072 * 2 + 65536,
      byState: { SUBMITTED: 2, COMPLETED_IO: 1 },
      byOperation: { readv: 3 },
      byStateOperation: { "SUBMITTED/readv": 2, "COMPLETED_IO/readv": 1 },
      sync: 1,
      syncBytes: 8192,
    });
  });

  it("keeps a handle whose columns are NULL (handed out, not yet defined) instead of dropping the sample", () => {
    const { tick: t } = deriveSample(1, [row({ handles: [["HANDED_OUT", null, null, null, null]] })], 3);
    expect(t.aio).toMatchObject({ inFlight: 1, bytes: 0, byOperation: { invalid: 1 }, byStateOperation: { "HANDED_OUT/invalid": 1 } });
  });

  it("counts a handle not yet defined in the tick's handles but as no read of its run, async or synchronous", () => {
    const { runs } = deriveSample(1, [row({ handles: [["HANDED_OUT", null, null, null, null]] })], 3);
    expect(runs[0].sample).toMatchObject({ inFlight: 0, syncInFlight: 0 });
  });

  it("counts io workers alive and busy", () => {
    expect(tick.workers).toEqual({ configured: 3, alive: 3, busy: 2 });
  });

  it("counts waits of active backends only", () => {
    expect(tick.waits).toEqual({ "IO:AioIoCompletion": 1, CPU: 1, "IO:DataFileRead": 1 });
    expect(tick.active).toBe(2);
  });

  it("folds parallel workers into their leader's run", () => {
    expect(runs).toHaveLength(2);
    const scan = runs.find((r) => r.leader.pid === 10)!;
    expect(scan.sample).toEqual({ id: "10:1000", state: "aio", inFlight: 3, syncInFlight: 0 });
    expect(scan.workerPids).toEqual([11]);
    expect(scan.blocks.get("5/100")!.last).toBe(47);
    const lookups = runs.find((r) => r.leader.pid === 20)!;
    expect(lookups.sample).toEqual({ id: "20:2000", state: "read", inFlight: 0, syncInFlight: 1 });
  });

  it("keeps the span of async blocks per file, and files read synchronously apart", () => {
    const scan = runs.find((r) => r.leader.pid === 10)!;
    expect(scan.blocks.get("5/100")).toEqual({ dbOid: 5, filenode: 100, first: 0, last: 47 });
    expect(scan.syncFiles.size).toBe(0);
    const lookups = runs.find((r) => r.leader.pid === 20)!;
    expect(lookups.blocks.size).toBe(0);
    expect([...lookups.syncFiles.keys()]).toEqual(["5/200"]);
  });
});
