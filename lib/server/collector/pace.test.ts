import { describe, expect, it } from "vitest";
import { AIOS_FLOOR_MS, AIOS_PROBE_FIRST_MS, Budget } from "./budget";
import { CostMeter } from "./cost";
import { Pace } from "./pace";
import { CollectorStats } from "./stats";

/** A pace over a fresh 5 ms/s budget, with pg_aios and pg_stat_io at these exact costs (ms a call). */
function pace(exact: { aios?: number; stat_io?: number }): Pace {
  const cost = new CostMeter();
  for (const [name, ms] of Object.entries(exact)) cost.calibrate(name as "aios" | "stat_io", ms, 0);
  return new Pace(new Budget(5, 0), cost, new CollectorStats(), () => null, 0);
}

describe("Pace", () => {
  it.each([
    { what: "a cheap read", aiosMs: 0.5, sinceMs: 100, probeMs: AIOS_PROBE_FIRST_MS, is: { kind: "read", probeMs: AIOS_PROBE_FIRST_MS } },
    {
      what: "one over the window, before its floor",
      aiosMs: 200,
      sinceMs: 100,
      probeMs: AIOS_PROBE_FIRST_MS,
      is: { kind: "put-off", starved: false },
    },
    {
      what: "one over the window, at its floor",
      aiosMs: 200,
      sinceMs: AIOS_FLOOR_MS,
      probeMs: AIOS_PROBE_FIRST_MS,
      is: { kind: "put-off", starved: true },
    },
    {
      what: "a floor read that costs little",
      aiosMs: 4,
      sinceMs: AIOS_FLOOR_MS,
      probeMs: AIOS_PROBE_FIRST_MS,
      is: { kind: "read", probeMs: AIOS_PROBE_FIRST_MS },
    },
    {
      what: "one that never fits, when its probe is due",
      aiosMs: 200,
      sinceMs: 30_000,
      probeMs: 30_000,
      is: { kind: "read", probeMs: 60_000 },
    },
  ])("pg_aios: $what", ({ aiosMs, sinceMs, probeMs, is }) => {
    expect(pace({ aios: aiosMs }).aios({ sinceMs, probeMs }, 0)).toEqual(is);
  });

  it("a periodic read is due at its cadence, stretched only by an exact cost and only where it asks to be", () => {
    const stretched = { lastAt: 0, everyMs: 1000, stretch: { statement: "stat_io" as const, share: 0.15 } };
    expect(pace({}).due(stretched, 1000)).toBe(true);
    // 1.5 ms a read at 15% of 5 ms/s: every 2 s
    expect(pace({ stat_io: 1.5 }).due(stretched, 1500)).toBe(false);
    expect(pace({ stat_io: 1.5 }).due(stretched, 2000)).toBe(true);
    expect(pace({ stat_io: 1.5 }).due({ lastAt: 0, everyMs: 1000 }, 1000)).toBe(true);
  });
});
