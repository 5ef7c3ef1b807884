import { describe, expect, it } from "vitest";
import type { StatementStat } from "@/lib/schemas/runs";
import { run } from "../../test/support/fixtures";
import { progressText } from "@/lib/model/window/findings/figures";
import { inFlightCell, progressCell, readWaitCell, statementShare } from "./run-cells";

const stat = (over: Partial<StatementStat> = {}): StatementStat => ({
  queryId: "q1",
  query: "select",
  calls: 3,
  totalExecTime: 1000,
  readTime: 220,
  sharedBlksRead: 1,
  sharedBlksHit: 0,
  readShare: 0.22,
  ...over,
});

// Three shares for one run ("42%, 57 of 136", "async handles in 85 of 136", the statement's "22%"): one named figure for read wait (issue 11).
describe("readWaitCell", () => {
  it("is (async + synchronous read waits) / samples, with its counts", () => {
    const c = readWaitCell(run({ samples: 136, aioWaitSamples: 50, readWaitSamples: 7, otherIoWaitSamples: 3, ioWaitSamples: 60 }));
    expect(c).toMatchObject({ main: "42%", detail: "waiting on reads in 57 of 136 samples", split: "async 50, synchronous 7" });
    expect(c.title).toContain("other IO waits (not reads) in 3, not counted");
  });

  // "not waiting on reads" beside "100% / 1 of 1 / 1 other" (issue 11).
  it("says too few samples, never 100%, for a run of one sample waiting on another IO", () => {
    const c = readWaitCell(run({ samples: 1, cpuSamples: 0, ioWaitSamples: 1, otherIoWaitSamples: 1, verdict: "cpu" }));
    expect(c.main).toBe("too few samples");
    expect(c.detail).toBe("waiting on reads in 0 of 1 sample");
    expect(c.split).toBe("");
  });
});

describe("statementShare", () => {
  // Issue 19: "53%" sampled beside "exact: 50%" is fine; 70% beside 22% needs a why, not two bare figures.
  it("says why the sampled share and the exact one differ by more than a few points", () => {
    const ended = run({ queryId: "q1", samples: 12, aioWaitSamples: 8, readWaitSamples: 0, endedAt: 5000 });
    expect(statementShare(ended, [stat()])).toMatchObject({
      differs: "sampled 67% vs 22%: few samples, other calls, sampler over-counts",
      differsWhy:
        "sampled 67% vs 22%: few samples (12); pg_stat_statements covers all 3 calls in the window, this row one run; a sampler that shares the cores with the scan runs when the scan is blocked, so it over-counts waits",
    });
    const close = run({ queryId: "q1", samples: 100, aioWaitSamples: 25, readWaitSamples: 0, endedAt: 5000 });
    expect(statementShare(close, [stat()])?.differs).toBeNull();
    const running = run({ queryId: "q1", samples: 40, aioWaitSamples: 0, readWaitSamples: 0, endedAt: null });
    expect(statementShare(running, [stat({ calls: 1 })])?.differs).toBe("sampled 0% vs 22%: not counted yet");
  });

  it("labels the statement's exact share as what it is", () => {
    expect(statementShare(run({ queryId: "q1" }), [stat()])?.text).toBe("pg_stat_statements: 22% of execution time in reads (3 calls)");
    expect(statementShare(run({ queryId: null }), [stat()])).toBeNull();
    expect(statementShare(run({ queryId: "q1" }), [stat({ readTime: null })])).toBeNull();
  });
  it("says a parallel statement's read time is summed, never 100%", () => {
    expect(statementShare(run({ queryId: "q1" }), [stat({ readTime: 2400 })])?.text).toBe(
      "pg_stat_statements: read time above execution time (summed over its processes; 3 calls)",
    );
  });
});

// "0" over "peak" with no number (issue 11); and aio: null ticks (not read, not zero).
describe("inFlightCell", () => {
  it.each([
    {
      name: "running, read this sample",
      r: run({ endedAt: null, inFlightNow: 2, maxInFlight: 4 }),
      now: { id: "x", state: "aio" as const, inFlight: 3, syncInFlight: 0 },
      want: { main: "3", label: "now · peak 4", unknown: false },
    },
    {
      name: "running, pg_aios not read this sample",
      r: run({ endedAt: null, inFlightNow: 2, maxInFlight: 4 }),
      now: { id: "x", state: "aio" as const, inFlight: null, syncInFlight: null },
      want: { main: "–", label: "not read this sample (last 2, peak 4)", unknown: true },
    },
    {
      name: "ended with a peak",
      r: run({ endedAt: 5000, maxInFlight: 4, aioReadSamples: 12 }),
      now: undefined,
      want: { main: "4", label: "peak in flight (12 pg_aios reads)", unknown: false },
    },
    {
      name: "ended, none in flight",
      r: run({ endedAt: 5000, maxInFlight: 0, aioReadSamples: 1 }),
      now: undefined,
      want: { main: "0", label: "none seen in flight (1 pg_aios read)", unknown: false },
    },
    {
      name: "ended, never read",
      r: run({ endedAt: 5000, maxInFlight: 0, aioReadSamples: 0 }),
      now: undefined,
      want: { main: "–", label: "pg_aios not read in its samples", unknown: true },
    },
  ])("$name", ({ r, now, want }) => expect(inFlightCell(r, now)).toEqual(want));
});

// Finished scans with an empty "0%" progress bar (issue 11).
describe("progressCell", () => {
  it("an ended scan shows finished, not its last share", () => {
    const c = progressCell(run({ startedAt: 1000, endedAt: 4500, progress: 0, progressRelation: "public.readings" }), 8192);
    expect(c).toEqual({ kind: "finished", text: "finished (3.5 s), scanned public.readings" });
  });
  it("a running scan has a bar, its time left and its rate", () => {
    const c = progressCell(
      run({ endedAt: null, progress: 0.79, progressRelation: "public.events", readBlocksPerSec: 23_040, etaMs: 4000 }),
      8192,
    );
    expect(c).toMatchObject({ kind: "bar", pct: 79, text: "79% of public.events scanned", eta: "about 4.0 s left at 180 MB/s" });
  });
  it("a running scan whose rate is unsteady: its time left as a range, in the finding's words", () => {
    const r = run({
      endedAt: null,
      progress: 0.25,
      progressRelation: "public.events",
      readBlocksPerSec: 23_040,
      etaMs: 7400,
      etaRangeMs: [6200, 8700],
    });
    const c = progressCell(r, 8192);
    expect(c).toMatchObject({ kind: "bar", eta: "6-9 s left at 180 MB/s" });
    expect(progressText(r, 8192)).toContain(`(${c.kind === "bar" ? c.eta : ""})`);
  });
  it("no position: a dash", () => {
    expect(progressCell(run({ progress: null }), 8192)).toEqual({ kind: "none", text: "–" });
    expect(progressCell(run({ endedAt: 9, progress: null }), 8192)).toEqual({ kind: "none", text: "–" });
  });
});
