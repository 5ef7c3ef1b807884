import { describe, expect, it } from "vitest";
import { QueryRun } from "../../schemas/runs";
import { run } from "../../../test/support/fixtures";
import { formatTimeLeft, MIN_EVIDENCE_MS, notePosition, strayed, timeLeft, TRAIL_MAX, TRAIL_STEP_MS, type Position } from "./time-left";

/** Positions sampled every `every` ms from t = 0 while `blocksAt(t)` is covered. */
function trailOf(untilMs: number, blocksAt: (t: number) => number, every = 100): readonly Position[] {
  let trail: readonly Position[] = [];
  for (let t = 0; t <= untilMs; t += every) trail = notePosition(trail, { t, blocks: Math.floor(blocksAt(t)) });
  return trail;
}

const steady = (perSec: number) => (t: number) => (perSec * t) / 1000;

describe("timeLeft", () => {
  it.each([
    ["no position", [] as Position[]],
    ["one position", [{ t: 0, blocks: 10 }]],
    [
      "positions under MIN_EVIDENCE_MS apart",
      [
        { t: 0, blocks: 10 },
        { t: MIN_EVIDENCE_MS - 1, blocks: 500 },
      ],
    ],
    [
      "no movement",
      [
        { t: 0, blocks: 10 },
        { t: 2000, blocks: 10 },
      ],
    ],
  ])("is null with %s", (_, trail) => {
    expect(timeLeft(trail, 1000, 2000)).toBeNull();
  });

  it.each([
    // [seen for, left (blocks), rate (blocks/s)]
    [1000, 9000, 1000],
    [4000, 6000, 1000],
    [10_000, 500, 2000],
  ])("a steady scan seen %i ms with %i blocks left at %i/s: the middle is the plain answer, inside the range", (seen, left, rate) => {
    const eta = timeLeft(trailOf(seen, steady(rate)), left, seen)!;
    expect(eta.midMs).toBeCloseTo((left / rate) * 1000, -2);
    expect(eta.lowMs).toBeLessThan(eta.midMs);
    expect(eta.highMs).toBeGreaterThan(eta.midMs);
  });

  it("narrows, in ms, as the scan nears its end", () => {
    const trail = trailOf(5000, steady(1000));
    const widths = [8000, 4000, 1000, 200].map((left) => {
      const eta = timeLeft(trail, left, 5000)!;
      return eta.highMs - eta.lowMs;
    });
    for (let i = 1; i < widths.length; i++) expect(widths[i]).toBeLessThan(widths[i - 1]);
  });

  it("counts down from the last position that moved, never below zero", () => {
    const trail = trailOf(3000, steady(1000));
    const at = timeLeft(trail, 2000, 3000)!;
    const later = timeLeft(trail, 2000, 3600)!;
    expect(at.midMs - later.midMs).toBe(600);
    expect(at.highMs - later.highMs).toBe(600);
    const past = timeLeft(trail, 2000, 9000)!;
    expect(past.midMs).toBe(0);
    expect(past.lowMs).toBe(0);
    expect(past.highMs).toBeGreaterThan(0);
  });

  it("is wider for a run whose rate has moved than for a steady one", () => {
    const wobbly = (t: number) => t + 300 * Math.sin(t / 400);
    const a = timeLeft(trailOf(6000, steady(1000)), 5000, 6000)!;
    const b = timeLeft(trailOf(6000, wobbly), 5000, 6000)!;
    expect(b.highMs - b.lowMs).toBeGreaterThan(a.highMs - a.lowMs);
  });

  // A neighbour ends: the scan's rate doubles at once. The time left must move there over
  // several samples, never halve in one.
  it("moves smoothly when the scan suddenly speeds up", () => {
    const total = 30_000;
    const blocksAt = (t: number) => (t < 6000 ? t : 6000 + 2 * (t - 6000));
    let trail: readonly Position[] = [];
    let before: number | null = null;
    for (let t = 0; t <= 12_000; t += 100) {
      trail = notePosition(trail, { t, blocks: blocksAt(t) });
      const eta = timeLeft(trail, total - blocksAt(t), t);
      if (eta && before !== null && t > 6000) {
        // Beyond the 100 ms that passed, the middle moves by under a tenth a sample.
        expect(Math.abs(eta.midMs - (before - 100)) / before).toBeLessThan(0.1);
      }
      before = eta?.midMs ?? null;
    }
    // ...and gets there: 6 s after the change, the middle is nearer the new rate's answer than the old one's.
    const left = total - blocksAt(12_000);
    expect(Math.abs(before! - left / 2)).toBeLessThan(Math.abs(before! - left));
  });
});

describe("strayed", () => {
  it("is zero for a steady run and names the side a run strayed to", () => {
    expect(strayed(trailOf(6000, steady(1000)))).toEqual({ faster: expect.closeTo(0, 1), slower: expect.closeTo(0, 1) });
    const sped = strayed(trailOf(6000, (t) => (t < 4000 ? t : 4000 + 3 * (t - 4000))));
    expect(sped.faster).toBeGreaterThan(0.3);
    expect(sped.slower).toBeLessThan(0.05);
  });
});

describe("notePosition", () => {
  it("keeps positions TRAIL_STEP_MS apart, the newest always, and drops one that did not move", () => {
    let trail: readonly Position[] = [];
    for (let t = 0; t <= 1000; t += 100) trail = notePosition(trail, { t, blocks: t });
    expect(trail.at(-1)).toEqual({ t: 1000, blocks: 1000 });
    for (let i = 1; i < trail.length - 1; i++) expect(trail[i].t - trail[i - 1].t).toBeGreaterThanOrEqual(TRAIL_STEP_MS);
    expect(notePosition(trail, { t: 1100, blocks: 1000 })).toBe(trail);
  });

  it("stays bounded over a long scan, keeping its first position and span", () => {
    let trail: readonly Position[] = [];
    for (let t = 0; t <= 3_600_000; t += 100) trail = notePosition(trail, { t, blocks: t });
    expect(trail.length).toBeLessThanOrEqual(TRAIL_MAX);
    expect(trail[0]).toEqual({ t: 0, blocks: 0 });
    expect(trail.at(-1)).toEqual({ t: 3_600_000, blocks: 3_600_000 });
  });
});

describe("formatTimeLeft", () => {
  it.each([
    [{ etaMs: null, etaRangeMs: null }, null],
    [{ etaMs: 4000, etaRangeMs: null }, "about 4.0 s left"],
    [{ etaMs: 4000, etaRangeMs: [3900, 4200] as [number, number] }, "about 4.0 s left"],
    [{ etaMs: 7400, etaRangeMs: [6200, 8700] as [number, number] }, "6-9 s left"],
    [{ etaMs: 300, etaRangeMs: [0, 700] as [number, number] }, "under 1 s left"],
    [{ etaMs: 90_000, etaRangeMs: [65_200, 110_000] as [number, number] }, "1:05-1:50 min left"],
    [{ etaMs: 50_000, etaRangeMs: [11_200, 101_100] as [number, number] }, "0:11-1:42 min left"],
  ])("%j: %s", (run, text) => {
    expect(formatTimeLeft(run)).toBe(text);
  });
});

describe("QueryRun.etaRangeMs on the wire", () => {
  it("reads a run stored before it (no etaRangeMs) as no range", () => {
    const { etaRangeMs: _dropped, ...older } = run({ etaMs: null });
    expect(QueryRun.parse(older).etaRangeMs).toBeNull();
    expect(QueryRun.parse(run({ etaMs: 7400, etaRangeMs: [6200, 8700] })).etaRangeMs).toEqual([6200, 8700]);
  });
});
