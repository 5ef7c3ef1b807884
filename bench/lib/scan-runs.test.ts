import { describe, expect, it } from "vitest";
import type { ScanRecord } from "./scans";
import { runsOfScans, type TimedRun } from "./scan-runs";

const scan = (n: number, start: number, ms: number, table = "public.pgws_scan"): ScanRecord => ({
  n,
  marker: `bench-scan x-${n}`,
  table,
  pid: 10,
  start,
  end: start + ms,
  ms,
  phase: "",
});
const run = (
  startedAt: number,
  endedAt: number,
  query = "SELECT count(*), avg(reading) FROM public.pgws_scan WHERE payload LIKE $1",
): TimedRun => ({
  pid: 10,
  query,
  startedAt,
  endedAt,
  lastSeen: endedAt,
});

describe("runsOfScans: each of the bench's scans with the run of it, by backend, table and time", () => {
  it("takes the nearest free run within the slack, one scan each", () => {
    const scans = [scan(1, 1000, 200), scan(2, 1800, 200)];
    const a = run(1300, 1500);
    const b = run(1750, 1950);
    const got = runsOfScans(scans, [b, a], 1000);
    expect([got.get(1), got.get(2)]).toEqual([a, b]);
  });

  it("gives every scan a run where each can have one, though the nearest pair first would leave one without", () => {
    // Two scans of one table 1.3 s apart; the first's run placed late in its read (nearer the second scan), the
    // second's run later still: nearest-first gives the first run to the second scan, and the first scan none.
    const scans = [scan(1, 1000, 150), scan(3, 2300, 150)];
    const first = run(1800, 1950);
    const second = run(3300, 3450);
    const got = runsOfScans(scans, [first, second], 1000);
    expect([got.get(1), got.get(3)]).toEqual([first, second]);
  });

  it("does not take a run of another table (nor one whose table name starts the same), of another pid, or further than the slack", () => {
    const scans = [scan(1, 1000, 200)];
    const small = run(1000, 1200, "SELECT count(*) FROM public.pgws_scan_small WHERE payload LIKE $1");
    const far = run(3000, 3200);
    const other = { ...run(1000, 1200), pid: 11 };
    expect(runsOfScans(scans, [small, far, other], 1000).size).toBe(0);
  });

  it("takes a run whose text is not known yet (pg_stat_statements had not named its queryid)", () => {
    const r = run(1100, 1250, "(queryid 42: its text when pg_stat_statements has it)");
    expect(runsOfScans([scan(1, 1000, 200)], [r]).get(1)).toBe(r);
  });
});
