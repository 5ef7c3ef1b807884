import { describe, expect, it, vi } from "vitest";
import { ioSample, run, snapshot, target, tick } from "../../test/support/fixtures";
import { LATEST_STALE_MS, LiveStore } from "./store";

describe("LiveStore", () => {
  it("loads a snapshot and continues from the snapshot's lastSeq, not its arrays", () => {
    const store = new LiveStore();
    store.load(
      snapshot({ ticks: [tick(1, 1000), tick(3, 1100)], io: [ioSample(2, 1050, 1, 8192), ioSample(4, 1120, 1, 8192)], lastSeq: 7 }),
    );
    expect(store.lastSeq).toBe(7);
    expect(store.get("frame").ticks).toHaveLength(2);
    expect(store.get("latest")?.seq).toBe(3);
    store.addIo(ioSample(9, 1200, 1, 1));
    expect(store.lastSeq).toBe(9);
  });

  // The read rate is the live estimate from pg_aios block positions, kept at each queries event (issue 11).
  it("keeps the live read estimate of each queries event at the newest tick's time", () => {
    const store = new LiveStore();
    store.load(snapshot({ ticks: [tick(1, 1000)], queries: [run({ endedAt: null, readBlocksPerSec: 1000 })] }));
    store.addTick(tick(2, 1500));
    store.apply("queries", {
      asOf: 0,
      queries: [run({ endedAt: null, readBlocksPerSec: 2000 }), run({ id: "e", endedAt: 1400, readBlocksPerSec: 9000 })],
      statements: [],
      statementsNote: null,
    });
    store.apply("queries", { asOf: 0, queries: [], statements: [], statementsNote: null });
    store.flush();
    expect(store.get("frame").rates).toEqual([
      { t: 1000, bytesPerSec: 1000 * 8192, scans: 1 },
      { t: 1500, bytesPerSec: 2000 * 8192, scans: 1 },
    ]);
  });

  it("counts the ticks the stream delivered, not the snapshot's or replays", () => {
    const store = new LiveStore();
    store.load(snapshot({ ticks: [tick(1, 0), tick(2, 100)] }));
    expect(store.ticksReceived).toBe(0);
    store.addTick(tick(2, 100));
    store.addTick(tick(3, 200));
    store.addTick(tick(4, 300));
    expect(store.ticksReceived).toBe(2);
  });

  it("drops replayed and duplicate ticks", () => {
    const store = new LiveStore();
    store.load(snapshot({ ticks: [tick(5, 500)] }));
    expect(store.addTick(tick(5, 500))).toBe(false);
    expect(store.addTick(tick(4, 400))).toBe(false);
    expect(store.addTick(tick(6, 600))).toBe(true);
    store.flush();
    expect(store.get("frame").ticks.map((t) => t.seq)).toEqual([5, 6]);
  });

  it("publishes chart frames only on flush, once for many ticks", () => {
    const store = new LiveStore();
    store.load(snapshot());
    const frame = vi.fn();
    store.subscribe("frame", frame);
    for (let i = 1; i <= 5; i++) store.addTick(tick(i, i * 100));
    expect(frame).not.toHaveBeenCalled();
    expect(store.flush()).toBe(true);
    expect(frame).toHaveBeenCalledTimes(1);
    expect(store.flush()).toBe(false);
  });

  // One answer on the page: the header's figures are of the moment of the findings and runs shown.
  it("shows in the header the tick of the findings' moment, not a newer one", () => {
    const store = new LiveStore();
    store.load(snapshot({ ticks: [tick(1, 1000)] }));
    const latest = vi.fn();
    store.subscribe("latest", latest);
    store.addTick(tick(2, 1100));
    store.addTick(tick(3, 1200));
    expect(store.get("latest")?.seq).toBe(1);
    store.apply("queries", { asOf: 1100, queries: [], statements: [], statementsNote: null });
    store.addTick(tick(4, 1300));
    store.apply("findings", { asOf: 1100, findings: [], moreRuns: 0 });
    expect(store.get("latest")?.seq).toBe(2);
    expect(latest).toHaveBeenCalledOnce();
    // The same moment again changes nothing.
    store.apply("findings", { asOf: 1150, findings: [], moreRuns: 0 });
    expect(latest).toHaveBeenCalledOnce();
  });

  it("shows the moment's own tick when it arrives after the moment (a reconnect: state first, then the missed ticks)", () => {
    const store = new LiveStore();
    store.load(snapshot({ ticks: [tick(1, 1000)] }));
    store.apply("queries", { asOf: 1200, queries: [], statements: [], statementsNote: null });
    store.apply("findings", { asOf: 1200, findings: [], moreRuns: 0 });
    expect(store.get("latest")?.seq).toBe(1);
    store.addTick(tick(2, 1100));
    store.addTick(tick(3, 1200));
    expect(store.get("latest")?.seq).toBe(3);
    // Past the moment: not shown until its findings come.
    store.addTick(tick(4, 1300));
    expect(store.get("latest")?.seq).toBe(3);
  });

  it("a snapshot shows the tick of its moment, not the newer ticks it also holds", () => {
    const store = new LiveStore();
    store.load(snapshot({ asOf: 1100, ticks: [tick(1, 1000), tick(2, 1100), tick(3, 1200)] }));
    expect(store.get("latest")?.seq).toBe(2);
    // A snapshot with no moment yet (asOf 0): its newest tick.
    store.load(snapshot({ asOf: 0, ticks: [tick(1, 1000), tick(2, 1100)] }));
    expect(store.get("latest")?.seq).toBe(2);
  });

  it("shows the newest tick when no moment came for LATEST_STALE_MS", () => {
    const store = new LiveStore();
    store.load(snapshot({ ticks: [tick(1, 1000)] }));
    store.addTick(tick(2, 1000 + LATEST_STALE_MS));
    expect(store.get("latest")?.seq).toBe(1);
    store.addTick(tick(3, 1001 + LATEST_STALE_MS));
    expect(store.get("latest")?.seq).toBe(3);
  });

  it("keeps the io array when only ticks changed (stable props)", () => {
    const store = new LiveStore();
    store.load(snapshot({ io: [ioSample(1, 0, 1, 1)] }));
    const before = store.get("frame");
    store.addTick(tick(2, 100));
    store.flush();
    const after = store.get("frame");
    expect(after.io).toBe(before.io);
    expect(after.ticks).not.toBe(before.ticks);
  });

  it("bounds memory to the window", () => {
    const store = new LiveStore();
    store.load(snapshot({ target: target({ windowMs: 1000 }) }));
    for (let i = 1; i <= 50; i++) store.addTick(tick(i, i * 100));
    store.addIo(ioSample(51, 100, 1, 1));
    store.addIo(ioSample(52, 5000, 1, 1));
    store.flush();
    const { ticks, io } = store.get("frame");
    expect(ticks[0].t).toBe(4000);
    expect(ticks).toHaveLength(11);
    expect(io.map((s) => s.seq)).toEqual([52]);
  });

  it("stays bounded without flushes (a hidden tab)", () => {
    const store = new LiveStore();
    store.load(snapshot({ target: target({ windowMs: 1000 }) }));
    for (let i = 1; i <= 5000; i++) store.addTick(tick(i, i * 100));
    expect((store as unknown as { ticks: unknown[] }).ticks.length).toBeLessThan(250);
  });

  it("tracks the stream state and when it changed", () => {
    const store = new LiveStore();
    store.setStream("live", 1000);
    store.setStream("live", 2000);
    expect(store.get("stream")).toEqual({ state: "live", since: 1000, error: null });
    store.setStream("reconnecting", 3000, "lost");
    expect(store.get("stream")).toEqual({ state: "reconnecting", since: 3000, error: "lost" });
  });

  it("applies the latest target, settings, queries and outages", () => {
    const store = new LiveStore();
    store.apply("target", target({ status: "down" }));
    store.apply("outages", { outages: [{ from: 1, to: null, error: "x" }] });
    expect(store.get("target")?.status).toBe("down");
    expect(store.get("outages")).toEqual([{ from: 1, to: null, error: "x" }]);
  });

  it("keeps the outages reference when the same list comes again", () => {
    const store = new LiveStore();
    store.apply("outages", { outages: [{ from: 1, to: 2, error: "x" }] });
    const first = store.get("outages");
    const listener = vi.fn();
    store.subscribe("outages", listener);
    store.apply("outages", { outages: [{ from: 1, to: 2, error: "x" }] });
    expect(store.get("outages")).toBe(first);
    expect(listener).not.toHaveBeenCalled();
    store.apply("outages", { outages: [{ from: 1, to: 3, error: "x" }] });
    expect(listener).toHaveBeenCalledOnce();
  });

  // Issue 19: a finding and the row it quotes are of one moment on the page.
  it("shows a queries event together with the findings of its moment, not before", () => {
    const store = new LiveStore();
    store.load(snapshot({ ticks: [tick(1, 1000)] }));
    const seen: string[] = [];
    store.subscribe("queries", () => seen.push(`queries ${store.get("queries").asOf} findings ${store.get("findings").asOf}`));
    store.subscribe("findings", () => seen.push(`findings ${store.get("findings").asOf} queries ${store.get("queries").asOf}`));
    store.apply("queries", { asOf: 2000, queries: [run({ endedAt: null })], statements: [], statementsNote: null });
    expect(store.get("queries").asOf).toBe(0);
    expect(seen).toEqual([]);
    store.apply("findings", { asOf: 2000, findings: [], moreRuns: 0 });
    expect(store.get("queries").asOf).toBe(2000);
    expect(store.get("findings").asOf).toBe(2000);
    // Both channels changed before either listener could render one without the other.
    expect(seen).toEqual(["queries 2000 findings 0", "findings 2000 queries 2000"]);
  });

  it("does not hold a queries event whose findings never came: the next one shows it", () => {
    const store = new LiveStore();
    store.load(snapshot());
    store.apply("queries", { asOf: 1, queries: [], statements: [], statementsNote: null });
    store.apply("queries", { asOf: 2, queries: [], statements: [], statementsNote: null });
    expect(store.get("queries").asOf).toBe(1);
  });

  // Issue 21: the runs come as changes to the last state, still paired with their findings.
  it("applies the changes of the runs to the state they were made against, with their findings", () => {
    const store = new LiveStore();
    store.load(snapshot());
    store.apply("queries", {
      asOf: 1,
      queries: [run({ id: "a", endedAt: null, samples: 1 }), run({ id: "e", endedAt: 5 })],
      statements: [],
      statementsNote: null,
    });
    expect(store.applyQueriesChanges({ asOf: 2, base: 1, runs: [run({ id: "a", endedAt: null, samples: 2 })] })).toBe(true);
    expect(store.get("queries").asOf).toBe(1);
    store.apply("findings", { asOf: 2, findings: [], moreRuns: 0 });
    expect(store.get("queries").queries.map((r) => [r.id, r.samples])).toEqual([
      ["a", 2],
      ["e", run().samples],
    ]);
    expect(store.applyQueriesChanges({ asOf: 3, base: 1, runs: [] })).toBe(false);
    expect(store.applyQueriesChanges({ asOf: 3, base: 2, runs: [run({ id: "a", endedAt: 9 })], order: ["a"] })).toBe(true);
    store.apply("findings", { asOf: 3, findings: [], moreRuns: 0 });
    expect(store.get("queries").queries.map((r) => [r.id, r.endedAt])).toEqual([["a", 9]]);
  });
});
