import { describe, expect, it } from "vitest";
import type { AioHandle, SampledBackend } from "../../schemas/rows";
import { activeBackend } from "../../../test/support/fixtures";
import { deriveSample } from "./derive";
import { missedText } from "./missed-accum";
import { groupUnmatched, MISSED_RUN_MIN_MS, placeInSpan } from "./missed-runs";
import { RunStore } from "./runs";
import type { ProfileRead, WaitDelta } from "./wait-profile";

const backend = (pid: number, queryId: string, startMs: number, handles: AioHandle[] | null = null) =>
  activeBackend(pid, startMs, { query_id: queryId, handles });
const lookup = (dbOid: number, filenode: number) => ({ name: "public.t", dbOid, filenode, blocks: 1000 });
const aio = (pid: number, n: number, queryId: string | null = "8"): WaitDelta => ({
  pid,
  state: "aio",
  key: "IO:AioIoCompletion",
  queryId,
  n,
});
const cpu = (pid: number, n: number, queryId: string | null = "8"): WaitDelta => ({ pid, state: "cpu", key: "CPU", queryId, n });
const fileRead = (pid: number, n: number, queryId = "8"): WaitDelta => ({ pid, state: "read", key: "IO:DataFileRead", queryId, n });
/** A read of the profile over [from, to] on inflight's clock; the server's clock 50 ms behind. */
const read = (from: number, deltas: WaitDelta[], to = from + 1000): ProfileRead => ({
  from,
  to,
  offsetMs: 50,
  periodMs: 10,
  ownPid: 99,
  deltas,
});
/** Polls every 250 ms, one late (the tick held up by pg_stat_io and the statements): 1000, 1250, then 1750, 2000. */
const POLLS = [1000, 1250, 1750, 2000, 2250, 2500, 2750, 3000, 3250, 3500, 3750, 4000];
const texts = new Map([["8", "SELECT count(*) FROM t WHERE payload LIKE $1"]]);
const ctx = { polls: POLLS, textOf: (id: string) => texts.get(id) ?? null };
const missed = (store: RunStore) => store.list().filter((r) => r.seenBy === "pg_wait_sampling");

describe("placeInSpan: between two polls, in the longest gap, centred", () => {
  it("puts a statement in the gap no poll saw into", () => {
    expect(placeInSpan([1000, 1250, 1750, 2000], 1000, 2010, 360)).toEqual({ start: 1320, end: 1680 });
  });
  it("puts two statements of one session in two gaps, and never inside a gap taken", () => {
    expect(placeInSpan([1000, 1250, 1750, 2000], 1000, 2010, 200, [{ start: 1320, end: 1680 }])).toEqual({ start: 1775, end: 1975 });
  });
  it("keeps it within the span when it is longer than any gap", () => {
    expect(placeInSpan([1500], 1000, 2000, 800)).toEqual({ start: 1200, end: 2000 });
  });
});

describe("groupUnmatched: the deltas of no run, by queryid", () => {
  it("leaves out inflight's own session, deltas with no queryid and a pid's samples of a query only other pids' runs have", () => {
    const r = read(1000, []);
    const seen = new Map([["9", new Set([20])]]);
    const groups = groupUnmatched(r, [aio(10, 30), cpu(11, 5), aio(99, 40), cpu(12, 50, null), aio(13, 40, "9"), aio(20, 12, "9")], seen);
    // pid 20's own run of query 9 could not hold these: another statement of it
    expect(groups.map((g) => [g.queryId, [...g.byPid]])).toEqual([
      [
        "8",
        [
          [10, 30],
          [11, 5],
        ],
      ],
      ["9", [[20, 12]]],
    ]);
    expect(groupUnmatched(r, [aio(10, 30)], new Map(), (id) => id === "8")).toEqual([]);
  });
});

describe("RunStore: runs the polls missed, from pg_wait_sampling's profile", () => {
  it("makes an ended run of a statement no poll saw: its length from the leader's samples, in the gap between polls, async as its waits say", () => {
    const store = new RunStore(lookup);
    store.foldWaits(read(1000, [aio(10, 30), cpu(10, 6)]), 250, ctx);
    const [run] = missed(store);
    expect(run).toMatchObject({
      pid: 10,
      workerPids: [],
      queryId: "8",
      query: texts.get("8"),
      firstSeen: 1320,
      lastSeen: 1680,
      startedAt: 1270,
      endedAt: 1630,
      samples: 36,
      aioWaitSamples: 30,
      cpuSamples: 6,
      asyncSamples: 30,
      syncSamples: 0,
      aioReadSamples: 0,
      verdict: "async",
      seenBy: "pg_wait_sampling",
    });
    expect(run.id).toBe("10:1270");
  });

  it("gives the verdict the polls give: a statement waiting in IO:DataFileRead is sync", () => {
    const store = new RunStore(lookup);
    store.foldWaits(read(1000, [fileRead(10, 12), cpu(10, 20)]), 250, ctx);
    expect(missed(store).map((r) => [r.verdict, r.readWaitSamples, r.syncSamples])).toEqual([["sync", 12, 12]]);
  });

  it("takes the pid with the most samples as the run's, the others as its workers; a leader under MISSED_RUN_MIN_MS is no run", () => {
    const store = new RunStore(lookup);
    const short = MISSED_RUN_MIN_MS / 10 - 1;
    store.foldWaits(read(1000, [aio(11, 12), aio(10, 15), cpu(10, 5), aio(12, 12), cpu(20, short, "7")]), 250, ctx);
    expect(missed(store).map((r) => ({ pid: r.pid, workerPids: r.workerPids, samples: r.samples, ms: r.endedAt! - r.startedAt }))).toEqual([
      { pid: 10, workerPids: [11, 12], samples: 44, ms: 200 },
    ]);
  });

  it("leaves out another inflight's statements (their text says so) and another pid's samples of a query a polled run of the span has (a parallel worker it did not see)", () => {
    const store = new RunStore(lookup);
    texts.set("5", "SELECT /* inflight:aios */ count(*) FROM pg_aios");
    const poll = (t: number, rows: SampledBackend[]) => store.observe(t, deriveSample(t, rows, 3).runs);
    poll(1100, [backend(30, "8", 1050)]);
    poll(1350, []);
    store.foldWaits(read(1000, [cpu(40, 30, "5"), aio(31, 30)]), 250, ctx);
    expect(missed(store)).toEqual([]);
    texts.delete("5");
  });

  it("makes a run of a pid's samples of a query beyond what its polled run of it could hold: another statement of it, between two polls", () => {
    const store = new RunStore(lookup);
    // A run of query 8 polled at 1100 and gone at 1350 (idle since 1250 by its backend, the server's 1200): 17 samples at most
    store.observe(1100, deriveSample(1100, [backend(10, "8", 1000)], 3).runs);
    store.observe(1350, [], new Map([[10, { runId: "10:1000", queryStartMs: 1000, idleSinceMs: 1250, queryId: "8" }]]));
    store.foldWaits(read(1000, [aio(10, 45), cpu(10, 5)]), 250, ctx);
    const [next, first] = store.list();
    expect(first.seenBy).toBeUndefined();
    expect(next).toMatchObject({ seenBy: "pg_wait_sampling", pid: 10, verdict: "async" });
    expect(first.samples + next.samples).toBe(50);
    expect(next.samples).toBeGreaterThanOrEqual(25);
  });

  it("counts its samples on CPU as async in the share the polls saw in flight in the last run of the same query", () => {
    const store = new RunStore(lookup);
    const inFlight: AioHandle = ["SUBMITTED", "readv", 131072, false, 'blocks 84..99 in file "base/5/100"'];
    store.observe(1100, deriveSample(1100, [backend(10, "8", 1050, [inFlight])], 3).runs);
    store.observe(1350, deriveSample(1350, [backend(10, "8", 1050, [])], 3).runs);
    store.observe(1600, []);
    store.foldWaits(read(2000, [aio(10, 2), cpu(10, 18)]), 250, { ...ctx, polls: [2000, 2250, 2750, 3000] });
    expect(missed(store).map((r) => [r.asyncSamples, r.verdict])).toEqual([[11, "async"]]);
  });

  it("names the statement by its queryid until pg_stat_statements has its text", () => {
    const store = new RunStore(lookup);
    store.foldWaits(read(1000, [aio(10, 30, "77")]), 250, ctx);
    expect(missed(store)[0].query).toBe(missedText("77"));
    expect(missedText("77")).toContain("queryid 77");
    store.nameMissed((id) => (id === "77" ? "SELECT 77" : null));
    expect(missed(store)[0].query).toBe("SELECT 77");
  });

  it("keeps the ended runs in order of their end, so eviction and the fold read them right", () => {
    const store = new RunStore(lookup);
    // A polled run that ended at 2350, then the read of 1500-2500 finds one that ended before it
    store.observe(2100, deriveSample(2100, [backend(20, "3", 2050)], 3).runs);
    store.observe(2350, []);
    store.foldWaits(read(1500, [aio(10, 30)]), 250, { ...ctx, polls: [1500, 1750, 2100, 2350, 2500] });
    expect(store.list().map((r) => [r.pid, r.endedAt])).toEqual([
      [20, 2350],
      [10, 2025],
    ]);
    store.evictBefore(2100);
    expect(store.list().map((r) => r.pid)).toEqual([20]);
  });
});

describe("RunStore: a missed run where the polls saw its session end the statement", () => {
  /** A poll at `t` that sees pid 10 idle after a statement of `queryId` (the server's clock). */
  const idle = (store: RunStore, t: number, startMs: number, endMs: number, queryId = "8") => {
    const derived = deriveSample(
      t,
      [backend(10, queryId, startMs)].map((b) => ({ ...b, state: "idle", state_change_ms: endMs })),
      3,
    );
    store.observe(t, derived.runs, derived.backends);
  };
  /** pid 10 watched: a read at 1000-2000 found samples of it in no run (too few to be one). */
  const watched = () => {
    const store = new RunStore(lookup);
    store.foldWaits(read(1000, [cpu(10, 3, "9")]), 250, ctx);
    expect(store.watchedPids(2000)).toEqual([10]);
    return store;
  };

  it("starts and ends it where its statement did, on the server's clock, not where it fits between the polls", () => {
    const store = watched();
    idle(store, 2250, 2030, 2170);
    const at = { ...ctx, polls: [2000, 2250, 2500, 2750, 3000] };
    store.foldWaits(read(2000, [aio(10, 12), cpu(10, 2)]), 250, at);
    expect(missed(store).map((r) => [r.id, r.startedAt, r.endedAt, r.firstSeen, r.lastSeen, r.samples])).toEqual([
      ["10:2030", 2030, 2170, 2080, 2220, 14],
    ]);
    // Without the poll's word, the same read's run goes in the longest gap between polls, a guess.
    const guessed = watched();
    guessed.foldWaits(read(2000, [aio(10, 12), cpu(10, 2)]), 250, at);
    expect(missed(guessed)[0].startedAt).not.toBe(2030);
  });

  it("keeps watching the session while it has samples in the profile, though for longer than WATCH_MS the polls missed none of its statements", () => {
    const store = watched();
    // Each second a read with its samples, and a poll asking which sessions to return idle
    for (let from = 2000; from < 14_000; from += 1000) {
      store.foldWaits(read(from, [cpu(10, 5, null)]), 250, ctx);
      expect(store.watchedPids(from + 1250)).toEqual([10]);
    }
    idle(store, 14_250, 14_030, 14_170);
    store.foldWaits(read(14_000, [aio(10, 12), cpu(10, 2)]), 250, { ...ctx, polls: [14_000, 14_250, 14_500, 14_750, 15_000] });
    expect(missed(store).map((r) => [r.startedAt, r.endedAt])).toEqual([[14_030, 14_170]]);
  });

  it("makes a run of a statement of 150 ms the polls saw end, though the read holds under 100 ms of its samples (it began in the read before)", () => {
    const store = watched();
    idle(store, 2250, 1900, 2050);
    store.foldWaits(read(2000, [aio(10, MISSED_RUN_MIN_MS / 10 - 3)]), 250, ctx);
    expect(missed(store).map((r) => [r.startedAt, r.endedAt])).toEqual([[1900, 2050]]);
  });

  it("places it between the polls as before when the span holds two statements of its query (which samples are whose is not known), or its statement is a polled run's", () => {
    const two = watched();
    idle(two, 2250, 2030, 2170);
    idle(two, 2750, 2500, 2640);
    two.foldWaits(read(2000, [aio(10, 28)]), 250, ctx);
    expect(missed(two).map((r) => r.endedAt! - r.startedAt)).toEqual([280]);

    const polled = watched();
    polled.observe(2100, deriveSample(2100, [backend(10, "8", 2030)], 3).runs);
    idle(polled, 2250, 2030, 2170);
    polled.foldWaits(read(2000, [aio(10, 45)]), 250, ctx);
    const [next, first] = polled.list();
    expect([first.id, first.seenBy]).toEqual(["10:2030", undefined]);
    expect(next.seenBy).toBe("pg_wait_sampling");
    expect(next.id).not.toBe("10:2030");
  });

  it("places it where the statement ran when the span's other statement of its query is a polled run's", () => {
    const store = watched();
    store.observe(2100, deriveSample(2100, [backend(10, "8", 2030)], 3).runs);
    idle(store, 2250, 2030, 2170);
    idle(store, 2750, 2500, 2640);
    store.foldWaits(read(2000, [aio(10, 28)]), 250, ctx);
    expect(missed(store).map((r) => [r.id, r.startedAt, r.endedAt])).toEqual([["10:2500", 2500, 2640]]);
  });
});
