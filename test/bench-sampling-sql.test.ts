// The bench runs inflight's sampling statements bare beside it, cut from
// sql/: a change to those files that the cutting no longer understands
// should fail here, not minutes into `npm run bench`.
import { describe, expect, it } from "vitest";
import { statementMarker } from "../bench/lib/pgss";
import { BARE_NAMES, bareScripts, PGBENCH_MARKERS, PGBENCH_NAMES, pgbenchScripts } from "../bench/lib/sampling-sql";

describe("what pgbench runs beside inflight", () => {
  const scripts = pgbenchScripts();

  it("runs activity.sql and aios.sql as sql/ has them, marked as the bench's, the parameters filled in", () => {
    expect(scripts.activity).toMatch(/^SELECT \/\* bench part: activity \*\/ /);
    expect(scripts.activity).toContain("pg_catalog.pg_stat_get_activity(NULL)");
    expect(scripts.activity).toContain("'{}'::text[]");
    expect(scripts.activity).toContain("'{}'::int4[]");
    expect(scripts.activity).not.toMatch(/\$\d/);
    expect(scripts.aios).toMatch(/^SELECT \/\* bench part: aios \*\/ .*FROM pg_catalog\.pg_aios GROUP BY pid;$/);
  });

  it("is one statement a script, on one line, each told apart by its marker", () => {
    expect(Object.keys(scripts)).toEqual([...PGBENCH_NAMES]);
    for (const name of PGBENCH_NAMES) {
      expect(scripts[name]).toMatch(/;$/);
      expect(scripts[name]).not.toContain("\n");
      // a line comment left in would swallow the rest of the one line
      expect(scripts[name]).not.toContain("--");
      // pgbench takes :name anywhere, comments included, for a variable of its own (and prepares a parameter)
      expect(scripts[name].replaceAll("::", "")).not.toMatch(/:[A-Za-z0-9_]/);
      expect(statementMarker(scripts[name])).toBe(PGBENCH_MARKERS[name]);
    }
    expect(scripts.view).toContain("pg_catalog.pg_stat_activity a");
  });

  it("has figure 9's bare reads: a count of each view, each marked", () => {
    const bare = bareScripts();
    expect(Object.keys(bare)).toEqual([...BARE_NAMES]);
    expect(bare.aiosCount).toMatch(/count\(\*\) FROM pg_catalog\.pg_aios;$/);
    expect(bare.activityCount).toMatch(/count\(\*\) FROM pg_catalog\.pg_stat_get_activity\(NULL\);$/);
    expect(BARE_NAMES.map((n) => statementMarker(bare[n]))).toEqual(["part:aiosCount", "part:activityCount"]);
    for (const n of BARE_NAMES) expect(bare[n].replaceAll("::", "")).not.toMatch(/:[A-Za-z0-9_]/);
  });
});
