import { describe, expect, it } from "vitest";
import { deriveSample } from "./derive";
import type { AioHandle, SampledBackend } from "../../schemas/rows";
import { RunStore } from "./runs";
import { verdictMinority, verdictOf, verdictText } from "./verdict";

describe("verdictOf: from shares, never one sample", () => {
  it.each([
    ["async only", { samples: 10, asyncSamples: 6, syncSamples: 0 }, "async"],
    ["a single async sample, nothing else read", { samples: 1, asyncSamples: 1, syncSamples: 0 }, "async"],
    ["index lookups with one async handle among synchronous reads", { samples: 41, asyncSamples: 1, syncSamples: 40 }, "sync"],
    ["async in 3 of 41 beside synchronous reads: still a minority", { samples: 41, asyncSamples: 3, syncSamples: 38 }, "sync"],
    ["a bitmap scan: heap async, index pages synchronous", { samples: 100, asyncSamples: 30, syncSamples: 60 }, "async"],
    ["one each: too little to call it async", { samples: 2, asyncSamples: 1, syncSamples: 1 }, "sync"],
    ["synchronous only", { samples: 3, asyncSamples: 0, syncSamples: 3 }, "sync"],
    ["no read", { samples: 9, asyncSamples: 0, syncSamples: 0 }, "cpu"],
  ] as const)("%s -> %s", (_, run, want) => {
    expect(verdictOf(run)).toBe(want);
  });
});

describe("the minority, named", () => {
  const none = { aioWaitSamples: 0, readWaitSamples: 0, aioSamples: 0, aioReadSamples: 0 };
  it.each([
    // The minority in the read share's words and figures when it was waited on; as reads in flight when never waited on.
    [
      { samples: 41, asyncSamples: 1, syncSamples: 40, aioSamples: 1, aioReadSamples: 41 },
      "synchronous; an async read in flight in 1 of 41 samples that read pg_aios",
    ],
    [
      { samples: 41, asyncSamples: 3, syncSamples: 38, aioWaitSamples: 3, readWaitSamples: 30 },
      "synchronous; waiting on async reads in 3 of 41 samples",
    ],
    [
      { samples: 100, asyncSamples: 90, syncSamples: 1, readWaitSamples: 1 },
      "asynchronous; waiting on synchronous reads in 1 of 100 samples",
    ],
    [
      { samples: 100, asyncSamples: 90, syncSamples: 1, aioReadSamples: 50 },
      "asynchronous; a synchronous read in flight in 1 of 50 samples that read pg_aios",
    ],
    [{ samples: 10, asyncSamples: 6, syncSamples: 0 }, "asynchronous"],
    [{ samples: 9, asyncSamples: 0, syncSamples: 0 }, "no read seen"],
  ] as const)("%o -> %s", (counts, want) => {
    const run = { ...none, ...counts };
    expect(verdictText({ ...run, verdict: verdictOf(run) })).toBe(want);
  });

  it("is null when the run read one way", () => {
    expect(verdictMinority({ ...none, samples: 5, asyncSamples: 0, syncSamples: 5, readWaitSamples: 5, verdict: "sync" })).toBeNull();
  });
});

describe("RunStore's verdict", () => {
  const lookup = (dbOid: number, filenode: number) => ({ name: "public.t", dbOid, filenode, blocks: 1000 });
  const lookupRow = (wait: string, handles: AioHandle[]): SampledBackend => ({
    pid: 10,
    leader_pid: null,
    backend_type: "client backend",
    state: "active",
    wait_event_type: "IO",
    wait_event: wait,
    query_id: "7",
    query_start_ms: 1000,
    state_change_ms: 1000,
    datname: "db",
    usename: "u",
    query: "select sum(x) from t where id = any($1)",
    handles,
  });
  const syncPage: AioHandle = ["SUBMITTED", "readv", 8192, true, 'block 3 in file "base/5/200"'];
  const asyncPage: AioHandle = ["SUBMITTED", "readv", 8192, false, 'block 9 in file "base/5/100"'];

  it("stays synchronous when one sample of index lookups held an async handle, and counts it", () => {
    const store = new RunStore(lookup);
    for (let i = 0; i < 41; i++) {
      const rows = [i === 20 ? lookupRow("AioIoCompletion", [asyncPage]) : lookupRow("DataFileRead", [syncPage])];
      store.observe(2000 + i * 100, deriveSample(2000 + i * 100, rows, 3).runs);
    }
    const [run] = store.list();
    expect(run).toMatchObject({ samples: 41, asyncSamples: 1, syncSamples: 40, aioSamples: 1, maxInFlight: 1, verdict: "sync" });
    expect(verdictText(run)).toBe("synchronous; waiting on async reads in 1 of 41 samples");
  });
});
