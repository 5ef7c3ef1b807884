// Issue 40: a running scan's time left, held against its real end. Cold
// sequential scans of the run's PostgreSQL 18 table, alone and four at once,
// watched by a collector at the production cadence (100 ms); each scan's run
// looked at every 200 ms, and every look from a quarter of the scan on
// judged by the end this test's clock saw (bench/lib/time-left.ts, which the
// bench's figure 11 runs too, with goals of 90 % held and 15 % error).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coldScanRig, measureTimeLeft, timeLeftScanSql } from "../../../bench/lib/time-left";
import { testPg } from "../../../test/support/pg";
import { runsOf, watching, type Watch } from "../../../test/support/watch";

const PG = testPg();

/** Sixteen md5 a row: ~5 s alone on the 96 MB table, ~12 s four at once. */
const SQL = timeLeftScanSql(PG.table, 16);
/**
 * Three scans alone, three rounds of four: 15 scans, about 60 s. Two rounds (8 scans) judged
 * 8% and 43% median error on two quiet runs of the same machine: too few scans to judge by.
 * More (up to twice as many) while fewer than 30 looks can be judged: three scans alone of
 * 2.5 s gave 28 on one CI run (3.7 s and 40 looks on another).
 */
const MIN_LOOKS = 30;
const PLAN = { alone: 3, rounds: 3, together: 4, minLooks: MIN_LOOKS };
/**
 * Below the bench's goals (90 % held, 15 % error, BENCHMARKS.md figure 11):
 * the two cores here are shared with other work that comes and goes within a
 * scan and moves its rate with nothing in its past to foretell it, and 15
 * scans are few; the bounds sit under the worst of the runs measured.
 */
const HELD_AT_LEAST = 0.7;
const ERROR_AT_MOST = 0.35;
/**
 * Four at once, the middle's error: 8%, 17%, 40%, 43% and 48% on five quiet runs of this machine
 * (2026-12-06), the range holding the end in 79-93% of the looks. Four CPU-heavy scans share two
 * cores; when one ends the others speed up, and nothing in a scan's past foretells when. The range
 * widens for it and is what the page leads with; the middle stays this far off until the estimate
 * knows its neighbours (issue 40's goal of 15% is not met: BENCHMARKS.md figure 11). A guard
 * against a worse estimate, not the goal.
 */
const TOGETHER_ERROR_AT_MOST = 0.6;

describe("time left against real ends (cold scans of PostgreSQL 18)", () => {
  let w: Watch;
  beforeAll(async () => {
    w = await watching(PG.monitorUrl, 100);
  });
  afterAll(async () => {
    await w?.stop();
  });

  it("holds the real end in its range, its middle near it, alone and four at once", async () => {
    const rig = coldScanRig({
      superuserUrl: PG.superuserUrl,
      dataDir: PG.dataDir,
      table: PG.table,
      sql: SQL,
      look: (pid, from) => runsOf(w, pid, from).find((r) => r.endedAt === null),
    });
    const figure = await measureTimeLeft(rig, PLAN);
    const said = `alone ${JSON.stringify(figure.alone)}; four at once ${JSON.stringify(figure.together)}`;
    console.log(`[time-left] ${said}`);
    for (const [judged, errorAtMost] of [
      [figure.alone, ERROR_AT_MOST],
      [figure.together, TOGETHER_ERROR_AT_MOST],
    ] as const) {
      // Enough looks to judge by: a scan over in under a few looks would say nothing.
      expect(judged.looks, said).toBeGreaterThanOrEqual(MIN_LOOKS);
      expect(judged.heldShare, said).toBeGreaterThanOrEqual(HELD_AT_LEAST);
      expect(judged.medianError, said).toBeLessThanOrEqual(errorAtMost);
    }
  });
});
