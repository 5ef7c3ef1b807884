import { describe, expect, it } from "vitest";
import { run } from "../../../test/support/fixtures";
import type { Finding } from "../../schemas/findings";
import { redactFindings } from "./window";

const scan = run({ id: "7:1", pid: 7, query: "SELECT count(*) FROM t WHERE secret = 'hunter2'", queryId: null });
const of = (over: Partial<Finding>): Finding => ({
  id: "x",
  rule: "async_reads",
  severity: "info",
  glance: { now: "waiting on its async reads", lever: null },
  text: "",
  evidence: {},
  since: 0,
  ...over,
});

describe("redactFindings", () => {
  it("a run's finding: neither its sentence nor its glance carries a literal", () => {
    const f = of({
      runId: "7:1",
      text: "Running: pid 7 `SELECT count(*) FROM t WHERE secret = 'hunter2'`, 2 s",
      glance: { now: "on CPU", lever: null, query: "SELECT count(*) FROM t WHERE secr…" },
    });
    const [r] = redactFindings([f], [scan], []);
    expect(JSON.stringify(r)).not.toContain("hunter2");
    expect(r.text).toContain("`SELECT count(*) FROM t WHERE secret = ?`");
    expect(r.glance.query).toBe("SELECT count(*) FROM t WHERE secr…");
  });

  it("a statement's finding: its glance quotes pg_stat_statements' text", () => {
    const f = of({
      rule: "cached",
      queryId: "9",
      text: "`SELECT 'hunter2'`: 3 calls",
      glance: { now: "`SELECT 'hunter2'` reads only from shared buffers", lever: null },
    });
    const [r] = redactFindings(
      [f],
      [],
      [{ queryId: "9", query: "SELECT $1", calls: 3, totalExecTime: 200, readTime: 0, sharedBlksRead: 0, sharedBlksHit: 9, readShare: 0 }],
    );
    expect(JSON.stringify(r)).not.toContain("hunter2");
    expect(r.glance.now).toBe("`SELECT $1` reads only from shared buffers");
  });

  it("a finding kept on disk before glances: redacted the same, no glance made up", () => {
    const { glance: _g, ...old } = of({ runId: "7:1", text: "`SELECT 'hunter2'`" });
    const [r] = redactFindings([old], [scan], []);
    expect(r).not.toHaveProperty("glance");
    expect(r.text).not.toContain("hunter2");
  });
});
