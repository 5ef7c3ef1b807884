import { describe, expect, it } from "vitest";
import { run, snapshot, tick } from "../../test/support/fixtures";
import { freeze } from "./freeze";
import { LiveStore } from "./store";

function loaded() {
  const store = new LiveStore();
  store.load(snapshot({ ticks: [tick(1, 1000), tick(2, 1100)], queries: [run({ id: "1:1" })] }));
  return store;
}

describe("freeze", () => {
  it("keeps the data as it was while the store goes on", () => {
    const store = loaded();
    const view = freeze(store, { from: 900, to: 1100 }, 5);
    store.addTick(tick(3, 1200));
    store.addTick(tick(4, 1300));
    store.apply("queries", { asOf: 0, queries: [], statements: [], statementsNote: null });
    store.flush();
    expect(view.frame.ticks.map((t) => t.seq)).toEqual([1, 2]);
    expect(view.queries.queries.map((r) => r.id)).toEqual(["1:1"]);
    expect(store.ticksReceived - view.ticksAtFreeze).toBe(2);
    expect(view).toMatchObject({ from: 900, to: 1100, frozenAt: 5, zoomed: false, unzoomTo: null });
  });

  it("keeps the sampling interval of its moment: a gap in the copy is judged as it was", () => {
    const store = loaded();
    const sampleMs = store.get("target")!.sampleMs;
    const view = freeze(store, { from: 900, to: 1100 }, 5);
    store.apply("target", { ...store.get("target")!, sampleMs: sampleMs * 10 });
    expect(view.cadenceMs).toBe(sampleMs);
  });

  it("includes ticks not yet published as a frame, and publishes nothing", () => {
    const store = loaded();
    const published = store.get("frame");
    store.addTick(tick(3, 1200));
    expect(freeze(store, { from: 0, to: 1200 }, 0).frame.ticks).toHaveLength(3);
    expect(store.get("frame")).toBe(published);
  });
});
