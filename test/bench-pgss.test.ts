// The bench's pg_stat_statements arithmetic: which statement a row is (by
// its marker, not its text), deltas by role and by statement.
import { describe, expect, it } from "vitest";
import { meanMs, perStatement, pgssDelta, snapshotOf, statementMarker } from "../bench/lib/pgss";

describe("statementMarker", () => {
  it.each([
    ["SELECT /* inflight:activity */ s.pid FROM pg_catalog.pg_stat_get_activity(NULL) s WHERE strpos(s.query, $2) = $3", "activity"],
    ["SELECT DISTINCT ON (queryid) /* inflight:stat_statements_texts */ queryid::text", "stat_statements_texts"],
    ["SELECT /* bench part: view */ a.pid FROM pg_catalog.pg_stat_activity a", "part:view"],
    ["SELECT /* bench part: aiosCount */ count(*) FROM pg_catalog.pg_aios", "part:aiosCount"],
    // the literal in activity.sql's filter is no marker
    ["SELECT 1 WHERE strpos(query, '/* inflight') = 0", null],
    ["SELECT pg_database_size(datname) FROM pg_database", null],
  ])("%s -> %s", (query, marker) => {
    expect(statementMarker(query)).toBe(marker);
  });
});

const row = (rolname: string, queryid: string, calls: number, totalExecMs: number, query: string) => ({
  rolname,
  queryid,
  calls,
  totalExecMs,
  query,
});

describe("pgssDelta", () => {
  const before = snapshotOf(
    [
      row("a", "1", 100, 20, "SELECT /* inflight:activity */ 1"),
      row("a", "2", 10, 8, "SELECT /* inflight:aios */ 2"),
      row("b", "1", 5, 1, "SELECT /* inflight:activity */ 1"),
    ],
    ["a", "b"],
  );
  const after = snapshotOf(
    [
      row("a", "1", 150, 30, "SELECT /* inflight:activity */ 1"),
      // the same queryid in a second database is added up
      row("a", "2", 12, 9, "SELECT /* inflight:aios */ 2"),
      row("a", "2", 3, 3, "SELECT /* inflight:aios */ 2"),
      row("a", "3", 4, 2, "SELECT now()"),
      row("b", "1", 5, 1, "SELECT /* inflight:activity */ 1"),
      row("c", "9", 1, 1, "not watched"),
    ],
    ["a", "b"],
  );

  it("adds up every statement of the role, and each by its marker", () => {
    const d = pgssDelta(before, after, "a");
    expect(d.calls).toBe(50 + 5 + 4);
    expect(d.totalExecMs).toBeCloseTo(10 + 4 + 2);
    expect(d.byFile).toEqual({
      activity: { calls: 50, totalExecMs: 10 },
      aios: { calls: 5, totalExecMs: 4 },
      "?": { calls: 4, totalExecMs: 2 },
    });
    expect(meanMs(d, "activity")).toBeCloseTo(0.2);
    expect(meanMs(d, "aios")).toBeCloseTo(0.8);
    expect(meanMs(d, "settings")).toBeNull();
  });

  it("leaves out statements that did not run between the two readings", () => {
    const d = pgssDelta(before, after, "b");
    expect(d.calls).toBe(0);
    expect(d.statements).toEqual([]);
    expect(pgssDelta(before, after, "nobody").calls).toBe(0);
  });

  it("gives each statement's rate over the span, costliest first", () => {
    const rows = perStatement(pgssDelta(before, after, "a"), 10);
    expect(rows.map((r) => r.file)).toEqual(["activity", "aios", "?"]);
    expect(rows[0]).toEqual({ file: "activity", calls: 50, callsPerSecond: 5, meanMs: 0.2, msPerSecond: 1 });
  });
});
