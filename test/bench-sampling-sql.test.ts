// The bench runs inflight's sampling statements bare beside it, cut from
// sql/: a change to those files that the cutting no longer understands
// should fail here, not minutes into `npm run bench`.
import { describe, expect, it } from "vitest";
import { PART_NAMES, partMarker, samplingScript, statementParts } from "../bench/lib/sampling-sql";

describe("the bench's sampling statement and its parts", () => {
  it("runs activity.sql as sql/ has it, its parameter filled in, as one pgbench statement", () => {
    const script = samplingScript();
    expect(script).toContain("/* inflight:activity */");
    expect(script).toContain("'{}'::text[]");
    expect(script).not.toContain("$1");
    expect(script.endsWith(";\n")).toBe(true);
  });

  it("has pg_aios alone and pg_stat_activity alone, each marked, each one line", () => {
    const parts = statementParts();
    expect(Object.keys(parts)).toEqual([...PART_NAMES]);
    for (const name of PART_NAMES) {
      expect(parts[name]).toContain(partMarker(name));
      expect(parts[name]).toMatch(/;$/);
      expect(parts[name]).not.toContain("\n");
    }
    expect(parts.aios).toMatch(/FROM pg_catalog\.pg_aios GROUP BY pid;$/);
    expect(parts.activityFn).toContain("pg_stat_get_activity(NULL)");
    expect(parts.activity).toContain("pg_catalog.pg_stat_activity a");
  });
});
