import { describe, expect, it } from "vitest";
import { run, runSample, tick } from "../../../test/support/fixtures";
import { elapsedMs, ioWaitShare, runLine, runSamples, sortRuns, stateCounts, stateSegments, verdictEvidence } from "./runs";

describe("sortRuns", () => {
  const a = run({ id: "a", endedAt: 5000, samples: 10, ioWaitSamples: 9, maxInFlight: 2, startedAt: 0 });
  const b = run({ id: "b", endedAt: null, samples: 10, ioWaitSamples: 1, inFlightNow: 4, startedAt: 3000 });
  const c = run({ id: "c", endedAt: null, samples: 10, ioWaitSamples: 5, inFlightNow: 1, startedAt: 1000 });
  it.each([
    ["readShare", ["c", "b", "a"]],
    ["elapsed", ["c", "b", "a"]],
    ["inFlight", ["b", "c", "a"]],
  ] as const)("running first, then by %s", (by, ids) => expect(sortRuns([a, b, c], by, 6000).map((r) => r.id)).toEqual(ids));
});

describe("ioWaitShare / elapsedMs", () => {
  it("is a share of samples, null without samples", () => {
    expect(ioWaitShare(run({ samples: 50, ioWaitSamples: 21 }))).toBeCloseTo(0.42);
    expect(ioWaitShare(run({ samples: 0 }))).toBeNull();
  });
  it("counts a running query up to now and an ended one to its end", () => {
    expect(elapsedMs(run({ startedAt: 1000, endedAt: null, lastSeen: 2000 }), 9000)).toBe(8000);
    expect(elapsedMs(run({ startedAt: 1000, endedAt: 3000 }), 9000)).toBe(2000);
  });
});

describe("verdictEvidence", () => {
  it.each([
    { r: run({ verdict: "async", samples: 50, aioSamples: 42, maxInFlight: 5 }), text: "async handles in 42 of 50 samples; up to 5 in flight" },
    { r: run({ verdict: "sync", samples: 64, syncSamples: 63 }), text: "synchronous reads in 63 of 64 samples (98%)" },
    { r: run({ verdict: "async", samples: 15, aioSamples: 7, syncSamples: 1, maxInFlight: 3 }), text: "async handles in 7 of 15 samples; synchronous reads in 1 of 15 samples (7%); up to 3 in flight" },
    { r: run({ verdict: "cpu", samples: 1, cpuSamples: 1 }), text: "on CPU in 1 of 1 sample" },
    { r: run({ verdict: "cpu", samples: 20, cpuSamples: 16, ioWaitSamples: 2, readWaitSamples: 1, otherIoWaitSamples: 1 }), text: "on CPU in 16 of 20 samples; read waits in 1; other IO waits (not reads) in 1; other waits in 2" },
    { r: run({ verdict: "cpu", samples: 1, cpuSamples: 0, ioWaitSamples: 1, otherIoWaitSamples: 1 }), text: "on CPU in 0 of 1 sample; other IO waits (not reads) in 1" },
  ])("$text", ({ r, text }) => expect(verdictEvidence(r)).toBe(text));
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
});
