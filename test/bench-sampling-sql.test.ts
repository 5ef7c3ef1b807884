// The bench cuts the parts it runs beside the sampling statement out of
// sql/activity_aios.sql: a change to that file that the cutting no longer
// understands should fail here, not minutes into `npm run bench`.
import { describe, expect, it } from "vitest";
import { sqlText } from "@/lib/server/pg/run";
import { PART_NAMES, partMarker, samplingScript, statementParts } from "../bench/lib/sampling-sql";

describe("the bench's sampling statement and its parts", () => {
  it("runs the statement as sql/ has it, as one pgbench statement", () => {
    const script = samplingScript();
    expect(script.startsWith(sqlText("activity_aios").trimEnd())).toBe(true);
    expect(script.endsWith(";\n")).toBe(true);
  });

  it("cuts pg_aios alone and pg_stat_activity alone out of it, each marked", () => {
    const parts = statementParts();
    expect(Object.keys(parts)).toEqual([...PART_NAMES]);
    for (const name of PART_NAMES) {
      expect(parts[name]).toContain(partMarker(name));
      expect(parts[name]).toMatch(/;$/);
      expect(parts[name]).not.toContain("\n");
    }
    // pg_stat_statements counts a statement as the sampling one when it reads both views
    expect(parts.aios).toMatch(/FROM pg_catalog\.pg_aios GROUP BY pid;$/);
    expect(parts.aios).not.toContain("pg_stat_activity");
    expect(parts.activity).not.toContain("pg_aios");
    for (const column of ["a.pid", "a.wait_event", "left(a.query, 2000)"]) expect(parts.activity).toContain(column);
    expect(parts.activity).not.toMatch(/\bh\./);
  });
});
