import { describe, expect, it } from "vitest";
import type { WaitProfileCount } from "../../schemas/rows";
import { foldWaits, noCounts, type WaitedRun } from "./run-waits";
import { averageWaits, WaitProfileReader, type ProfileRead } from "./wait-profile";

const row = (counts: WaitProfileCount[], nowMs = 10_000) => ({ counts, entries: counts.length, now_ms: nowMs, own_pid: 99 });

describe("WaitProfileReader: deltas between two reads of the profile's cumulative counts", () => {
  it("takes the counts at the first read, then what each rose by; a count new since counts whole", () => {
    const r = new WaitProfileReader();
    expect(r.read(row([[7, "IO", "DataFileRead", "42", 10]]), 1000)).toBeNull();
    const read = r.read(
      row(
        [
          [7, "IO", "DataFileRead", "42", 35],
          [7, null, null, "42", 60],
          [8, "IO", "AioIoCompletion", "0", 5],
        ],
        2000,
      ),
      2000,
    );
    expect(read).toMatchObject({ from: 1000, to: 2000, offsetMs: 0, periodMs: 10, ownPid: 99 });
    expect(read!.deltas).toEqual([
      { pid: 7, state: "read", key: "IO:DataFileRead", queryId: "42", n: 25 },
      { pid: 7, state: "cpu", key: "CPU", queryId: "42", n: 60 },
      { pid: 8, state: "aio", key: "IO:AioIoCompletion", queryId: null, n: 5 },
    ]);
  });

  it("leaves out counts that did not move, takes a count below the last as a reset, and starts over after reset()", () => {
    const r = new WaitProfileReader();
    r.read(
      row([
        [7, null, null, "1", 50],
        [8, null, null, "1", 9],
      ]),
      0,
    );
    expect(
      r.read(
        row([
          [7, null, null, "1", 4],
          [8, null, null, "1", 9],
        ]),
        1000,
      )!.deltas,
    ).toEqual([{ pid: 7, state: "cpu", key: "CPU", queryId: "1", n: 4 }]);
    r.reset();
    expect(r.read(row([[7, null, null, "1", 90]]), 2000)).toBeNull();
  });
});

describe("averageWaits: the deltas of the backends a tick counts, as average backends over the span", () => {
  it("divides by the sampling periods in the span, and leaves out pids not active", () => {
    const read: ProfileRead = {
      from: 0,
      to: 1000,
      offsetMs: 0,
      periodMs: 10,
      ownPid: null,
      deltas: [
        { pid: 7, state: "aio", key: "IO:AioIoCompletion", queryId: null, n: 40 },
        { pid: 7, state: "cpu", key: "CPU", queryId: null, n: 60 },
        { pid: 9, state: "cpu", key: "CPU", queryId: null, n: 100 },
      ],
    };
    expect(averageWaits(read, new Set([7]), 10)).toEqual({ "IO:AioIoCompletion": 0.4, CPU: 0.6 });
  });
});

function run(over: Partial<WaitedRun>): WaitedRun {
  return { pid: 7, workerPids: [], startedAt: 0, endedAt: null, queryId: null, sampled: null, handlesSeen: [], ...over };
}

describe("foldWaits: a delta goes to the runs of its pid or leader and query that overlap its span", () => {
  const span = (deltas: ProfileRead["deltas"]): ProfileRead => ({ from: 1000, to: 2000, offsetMs: 0, periodMs: 10, ownPid: null, deltas });

  it("shares a delta between two runs of one pid by how long each overlapped the span", () => {
    const ended = run({ startedAt: 500, endedAt: 1250 });
    const next = run({ startedAt: 1250 });
    foldWaits([ended, next], span([{ pid: 7, state: "read", key: "IO:DataFileRead", queryId: null, n: 100 }]), 100);
    expect(ended.sampled!.readWaitSamples).toBeCloseTo(25);
    expect(next.sampled!.readWaitSamples).toBeCloseTo(75);
    expect(next.sampled!.syncSamples).toBeCloseTo(75);
  });

  it("gives a parallel worker's samples to its leader's run, and none to a run of another query or one ended before the span", () => {
    const leader = run({ queryId: "42", workerPids: [70] });
    const other = run({ pid: 8, queryId: "43" });
    const old = run({ pid: 9, endedAt: 500 });
    foldWaits(
      [leader, other, old],
      span([
        { pid: 70, state: "aio", key: "IO:AioIoCompletion", queryId: "42", n: 30 },
        { pid: 8, state: "cpu", key: "CPU", queryId: "42", n: 30 },
        { pid: 9, state: "cpu", key: "CPU", queryId: null, n: 30 },
      ]),
      100,
    );
    expect(leader.sampled).toMatchObject({ samples: 30, aioWaitSamples: 30, asyncSamples: 30, ioWaitSamples: 30 });
    expect(other.sampled).toBeNull();
    expect(old.sampled).toBeNull();
  });

  it("counts samples on CPU as async or sync in the share of the span's polls that saw the run's handles", () => {
    const r = run({
      handlesSeen: [
        { t: 1100, async: true, sync: false },
        { t: 1500, async: true, sync: false },
        { t: 1900, async: false, sync: true },
        { t: 2000, async: false, sync: false },
      ],
    });
    foldWaits([r], span([{ pid: 7, state: "cpu", key: "CPU", queryId: null, n: 100 }]), 100);
    expect(r.sampled).toEqual({ ...noCounts(), samples: 100, cpuSamples: 100, asyncSamples: 50, syncSamples: 25 });
  });
});
