import { describe, expect, it } from "vitest";
import type { FleetEntry } from "@/lib/schemas/api";
import { cadenceNote, findingHref, fleetRows, rowShows, sparkLines } from "./fleet";
import { target } from "../../test/support/fixtures";

const entry = (over: Partial<FleetEntry> = {}): FleetEntry => ({
  target: target(),
  pendingRestarts: [],
  inFlightNow: 0,
  syncNow: 0,
  busiestQuery: null,
  spark: [],
  topFinding: null,
  lastRestart: null,
  ...over,
});

describe("fleetRows", () => {
  it("shows the server-rendered targets, figures unknown, until the first poll", () => {
    expect(fleetRows(undefined, [target({ id: "a" })])).toEqual([{ target: target({ id: "a" }), entry: null }]);
    expect(fleetRows(undefined, null)).toEqual([]);
  });
  it("then the polled entries", () => {
    const e = entry({ inFlightNow: 4 });
    expect(fleetRows([e], [target({ id: "old" })])).toEqual([{ target: e.target, entry: e }]);
  });
});

// Issue 21: with 100 targets the page redrew every row on every poll and every clock tick.
describe("rowShows", () => {
  const row = (over: Partial<FleetEntry> = {}, t = {}) => ({ target: target(t), entry: entry({ target: target(t), ...over }) });
  it("is the same for a poll that changed nothing the row shows", () => {
    expect(rowShows(row({}, { samples: 10, cost: { ...target().cost, msPerSecond: 1.3 } }), 60_000)).toBe(
      rowShows(row({}, { samples: 20 }), 60_000),
    );
  });
  it("changes with a figure the row shows, and with the clock only when a text does", () => {
    expect(rowShows(row({ inFlightNow: 3 }), 60_000)).not.toBe(rowShows(row(), 60_000));
    // "connected since 00:00:00 (2 h ago)" for a whole minute
    expect(rowShows(row(), 7_200_000)).toBe(rowShows(row(), 7_201_000));
    const busy = row({ busiestQuery: { id: "1:0", query: "select 1", verdict: "async", startedAt: 55_000, inFlight: 2 } });
    expect(rowShows(busy, 60_000)).not.toBe(rowShows(busy, 61_000)); // "started 5 s ago", then 6
  });
});

describe("sparkLines", () => {
  it("scales to the peak, 0 at the bottom", () => {
    expect(sparkLines([0, 2, 4], 10, 8)).toEqual({ lines: ["0,8 5,4 10,0"], dots: [], peak: 4, max: 4, samples: 3 });
  });
  it("breaks the line at nulls and draws lone samples as dots", () => {
    const s = sparkLines([1, 1, null, 2, null, null, 2, 0], 7, 2);
    expect(s.lines).toEqual(["0,1 1,1", "6,0 7,2"]);
    expect(s.dots).toEqual([{ x: 3, y: 0 }]);
    expect(s.samples).toBe(5);
  });
  it("keeps a flat zero line at the bottom (scale at least 1)", () => {
    expect(sparkLines([0, 0], 4, 2)).toMatchObject({ lines: ["0,2 4,2"], peak: 0, max: 1 });
  });
  it("draws nothing without samples", () => {
    expect(sparkLines([null, null], 4, 2)).toEqual({ lines: [], dots: [], peak: 0, max: 1, samples: 0 });
    expect(sparkLines([], 4, 2)).toEqual({ lines: [], dots: [], peak: 0, max: 1, samples: 0 });
  });
});

// The fleet page said "Sampling runs fast (every sample interval)" (issue 11).
describe("cadenceNote", () => {
  it.each([
    [
      100,
      1000,
      "Each target is sampled every 100 ms while someone has its page open, once a second otherwise; the rate achieved is under its name.",
    ],
    [
      250,
      2000,
      "Each target is sampled every 250 ms while someone has its page open, every 2 s otherwise; the rate achieved is under its name.",
    ],
    [1000, 1000, "Each target is sampled once a second; the rate achieved is under its name."],
  ])("%i / %i", (fast, idle, want) => expect(cadenceNote(fast, idle)).toBe(want));

  it("says the slower cadence where pg_wait_sampling gives the wait events, when INFLIGHT_SAMPLE_MS was not given", () => {
    expect(cadenceNote(100, 1000, 250)).toBe(
      "Each target is sampled every 100 ms (every 250 ms where pg_wait_sampling gives the wait events) while someone has its page open, once a second otherwise; the rate achieved is under its name.",
    );
    expect(cadenceNote(100, 1000, 100)).toBe(cadenceNote(100, 1000));
  });
});

describe("findingHref", () => {
  it("leads to the run's row and timeline, or the target", () => {
    expect(findingHref("demo", { runId: "7:9" })).toBe("/targets/demo?run=7%3A9");
    expect(findingHref("demo", {})).toBe("/targets/demo");
  });
});
