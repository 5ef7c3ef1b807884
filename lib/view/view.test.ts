import { describe, expect, it } from "vitest";
import { ioSample, run, tick } from "../../test/support/fixtures";
import type { TimeDomain } from "./time";
import { dragRange, frameNewest, liveDomain, rangeOutsideFrame, runsInRange, unzoom, zoomInto, type FrozenView } from "./view";

/** A view frozen at [from, to] with two ticks and one run, as the store's freeze makes it (lib/client/freeze.test.ts). */
function frozen(range: TimeDomain): FrozenView {
  const queries = { asOf: 0, queries: [run({ id: "1:1" })], statements: [], statementsNote: null };
  return {
    ...range,
    frame: { ticks: [tick(1, 1000), tick(2, 1100)], io: [], rates: [] },
    cadenceMs: 100,
    queries,
    restarts: [],
    outages: [],
    frozenAt: 0,
    ticksAtFreeze: 2,
    zoomed: false,
    unzoomTo: null,
  };
}

describe("zoom", () => {
  const view = frozen({ from: 0, to: 1000 });
  it("goes back to the range it was frozen at, then to live", () => {
    const z1 = zoomInto(view, { from: 100, to: 500 });
    const z2 = zoomInto(z1, { from: 200, to: 300 });
    expect(z2).toMatchObject({ from: 200, to: 300, zoomed: true, unzoomTo: { from: 0, to: 1000 } });
    const back = unzoom(z2);
    expect(back).toMatchObject({ from: 0, to: 1000, zoomed: false, unzoomTo: null });
    expect(unzoom(back!)).toBeNull();
  });
  it("from live, reset zoom is live", () => {
    const zoomedFromLive = { ...view, zoomed: true };
    expect(unzoom(zoomedFromLive)).toBeNull();
  });
});

describe("dragRange", () => {
  it.each([
    [500, 100, 50, { from: 100, to: 500 }],
    [100.5, 600.25, 50, { from: 100, to: 601 }],
    [100, 120, 50, null],
    [100, 100, 1, null],
    [Number.NaN, 100, 1, null],
  ])("%s..%s (min %s)", (a, b, min, range) => expect(dragRange(a, b, min)).toEqual(range));
});

describe("runsInRange", () => {
  const runs = [
    run({ id: "ended-before", startedAt: 0, endedAt: 99 }),
    run({ id: "ends-inside", startedAt: 0, endedAt: 150 }),
    run({ id: "running", startedAt: 50, endedAt: null }),
    run({ id: "starts-after", startedAt: 201, endedAt: 300 }),
    run({ id: "inside", startedAt: 120, endedAt: 130 }),
  ];
  it("keeps the runs that overlap the range", () =>
    expect(runsInRange(runs, { from: 100, to: 200 }).map((r) => r.id)).toEqual(["ends-inside", "running", "inside"]));
});

describe("frames", () => {
  const frame = { ticks: [tick(1, 1000), tick(2, 2000)], io: [ioSample(3, 2500, 1, 1)], rates: [] };
  it("takes the newest of ticks and io, or the fallback", () => {
    expect(frameNewest(frame, 7)).toBe(2500);
    expect(frameNewest({ ticks: [], io: [], rates: [] }, 7)).toBe(7);
    expect(liveDomain(frame, 1000, 60_000, 0)).toEqual({ from: 1500, to: 2500 });
  });
  it.each([
    [{ from: 0, to: 999 }, true],
    [{ from: 2001, to: 3000 }, true],
    [{ from: 1500, to: 1600 }, false],
    [{ from: 0, to: 1000 }, false],
  ])("range %o outside: %s", (range, outside) => expect(rangeOutsideFrame(frame, range)).toBe(outside));
});
