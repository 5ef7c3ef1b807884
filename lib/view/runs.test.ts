import { describe, expect, it } from "vitest";
import { run, runSample, tick } from "../../test/support/fixtures";
import {
  elapsedMs,
  readWaitShare,
  runLine,
  runLineEmpty,
  runSamples,
  sortRuns,
  stateCounts,
  stateSegments,
  verdictEvidence,
  verdictLabel,
} from "./runs";

describe("sortRuns", () => {
  const a = run({ id: "a", endedAt: 5000, samples: 10, ioWaitSamples: 9, aioWaitSamples: 9, maxInFlight: 2, startedAt: 0 });
  const b = run({ id: "b", endedAt: null, samples: 10, ioWaitSamples: 1, aioWaitSamples: 1, inFlightNow: 4, startedAt: 3000 });
  const c = run({ id: "c", endedAt: null, samples: 10, ioWaitSamples: 5, readWaitSamples: 5, inFlightNow: 1, startedAt: 1000 });
  it.each([
    ["readWait", ["c", "b", "a"]],
    ["elapsed", ["c", "b", "a"]],
    ["inFlight", ["b", "c", "a"]],
  ] as const)("running first, then by %s", (by, ids) => expect(sortRuns([a, b, c], by, 6000).map((r) => r.id)).toEqual(ids));
});

describe("readWaitShare / elapsedMs", () => {
  it("is the findings' read wait: async + synchronous read waits / samples, other IO waits left out", () => {
    expect(
      readWaitShare(run({ samples: 136, ioWaitSamples: 60, aioWaitSamples: 50, readWaitSamples: 7, otherIoWaitSamples: 3 })),
    ).toBeCloseTo(57 / 136);
    expect(readWaitShare(run({ samples: 0 }))).toBeNull();
  });
  it("counts a running query up to now and an ended one to its end", () => {
    expect(elapsedMs(run({ startedAt: 1000, endedAt: null, lastSeen: 2000 }), 9000)).toBe(8000);
    expect(elapsedMs(run({ startedAt: 1000, endedAt: 3000 }), 9000)).toBe(2000);
  });
});

describe("verdictEvidence", () => {
  it.each([
    // Reads in flight are counted in the samples that read pg_aios, and said so (issue 11: three shares for one run).
    {
      r: run({ verdict: "async", samples: 136, aioReadSamples: 120, aioSamples: 85, maxInFlight: 5 }),
      text: "reads in flight in 85 of 120 samples that read pg_aios; peak 5 of its own in flight",
    },
    {
      r: run({ verdict: "async", samples: 10, aioReadSamples: 0, aioSamples: 0, aioWaitSamples: 4 }),
      text: "waiting on async reads in 4 of 10 samples (pg_aios not read)",
    },
    // pg_aios read, no handle of its own caught: the async verdict is its waits, said as such (not "in flight in 0 of 1" under an async badge)
    {
      r: run({ verdict: "async", samples: 1, aioReadSamples: 1, aioSamples: 0, aioWaitSamples: 1 }),
      text: "waiting on async reads in 1 of 1 sample; none of its own in flight in the 1 sample that read pg_aios",
    },
    // Issue 40: no read share of its own beside the read-wait cell (which has the run's one, as its finding does).
    {
      r: run({ verdict: "sync", samples: 64, syncSamples: 63, readWaitSamples: 40 }),
      text: "its own reads (IO:DataFileRead or an f_sync handle)",
    },
    {
      r: run({ verdict: "async", samples: 15, aioReadSamples: 15, aioSamples: 7, syncSamples: 1, maxInFlight: 3 }),
      text: "reads in flight in 7 of 15 samples that read pg_aios; a synchronous read in flight in 1 of 15 samples that read pg_aios; peak 3 of its own in flight",
    },
    {
      r: run({ verdict: "async", samples: 15, aioReadSamples: 15, aioSamples: 7, syncSamples: 2, readWaitSamples: 2, maxInFlight: 3 }),
      text: "reads in flight in 7 of 15 samples that read pg_aios; waiting on synchronous reads in 2 of 15 samples; peak 3 of its own in flight",
    },
    // issue 19: one async handle among index lookups' synchronous reads is the minority it is, not the verdict
    {
      r: run({ verdict: "sync", samples: 41, syncSamples: 40, asyncSamples: 1, aioReadSamples: 41, aioSamples: 1, maxInFlight: 1 }),
      text: "its own reads (IO:DataFileRead or an f_sync handle); an async read in flight in 1 of 41 samples that read pg_aios, a minority; peak 1 of its own in flight",
    },
    { r: run({ verdict: "cpu", samples: 1, cpuSamples: 1 }), text: "on CPU in 1 of 1 sample" },
    {
      r: run({ verdict: "cpu", samples: 20, cpuSamples: 16, ioWaitSamples: 2, readWaitSamples: 1, otherIoWaitSamples: 1 }),
      text: "on CPU in 16 of 20 samples; waiting on reads in 1 of 20 samples; other IO waits (not reads) in 1; other waits in 2",
    },
    {
      r: run({ verdict: "cpu", samples: 1, cpuSamples: 0, ioWaitSamples: 1, otherIoWaitSamples: 1 }),
      text: "on CPU in 0 of 1 sample; other IO waits (not reads) in 1",
    },
  ])("$text", ({ r, text }) => expect(verdictEvidence(r)).toBe(text));
});

describe("verdictLabel", () => {
  it("does not call a run of one sample 'not waiting on reads'", () => {
    expect(verdictLabel(run({ verdict: "cpu", samples: 1 }))).toBe("no read seen");
    expect(verdictLabel(run({ verdict: "cpu", samples: 30 }))).toBe("not waiting on reads");
    expect(verdictLabel(run({ verdict: "async", samples: 1 }))).toBe("async reads");
  });
});

describe("run timeline", () => {
  const ticks = [
    tick(1, 0, { runs: [runSample("r", "cpu")] }),
    tick(2, 100, { runs: [runSample("other", "cpu"), runSample("r", "aio", 4)] }),
    tick(3, 200, { runs: [runSample("r", "aio", 5, 1)] }),
    tick(4, 300, { runs: [] }),
    tick(5, 5000, { runs: [runSample("r", "read", 0, 1)] }),
  ];

  it("takes the samples of the selected run only", () => {
    expect(runSamples(ticks, "r").map((s) => [s.t, s.state, s.inFlight])).toEqual([
      [0, "cpu", 0],
      [100, "aio", 4],
      [200, "aio", 5],
      [5000, "read", 0],
    ]);
  });

  it("merges equal states into segments and leaves unsampled time empty", () => {
    expect(stateSegments(runSamples(ticks, "r"), 100)).toEqual([
      { from: 0, to: 100, state: "cpu" },
      { from: 100, to: 300, state: "aio" },
      { from: 5000, to: 5100, state: "read" },
    ]);
  });

  it("counts states and breaks the in-flight line over the hole", () => {
    const samples = runSamples(ticks, "r");
    expect(stateCounts(samples)).toEqual({ aio: 2, read: 1, io: 0, cpu: 1, other: 0 });
    expect(runLine(samples, 100, []).map((r) => r.inFlight)).toEqual([0, 4, 5, null, 0]);
  });

  it("says pg_aios was not read rather than 'no reads in flight' when no sample read it", () => {
    const unread = [tick(1, 0, { runs: [{ id: "r", state: "aio", inFlight: null, syncInFlight: null }] })];
    const samples = runSamples(unread, "r");
    expect(runLineEmpty(samples, runLine(samples, 100, []))).toMatch(/not read in any sample/);
    const idle = runSamples([tick(1, 0, { runs: [runSample("r", "cpu")] })], "r");
    expect(runLineEmpty(idle, runLine(idle, 100, []))).toMatch(/^No reads in flight/);
  });
});
