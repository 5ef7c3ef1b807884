import { describe, expect, it } from "vitest";
import type { Finding } from "@/lib/schemas/findings";
import { findingList, heldFor, runHref } from "./findings";

const f = (id: string, severity: Finding["severity"], runId?: string, since = 0): Finding => ({
  id,
  rule: runId ? "async_reads" : "settings_unchanged",
  severity,
  glance: { now: id, lever: null },
  text: id,
  evidence: {},
  since,
  ...(runId ? { runId } : {}),
});

describe("findingList", () => {
  it("puts the server's causes first, most severe first, and the running queries in the server's order", () => {
    const list = findingList(
      { asOf: 0, findings: [f("r1", "info", "1:1"), f("s", "info"), f("r2", "act", "2:2"), f("w", "note")], moreRuns: 0 },
      "demo",
      10_000,
    );
    expect(list.causes.map((l) => l.finding.id)).toEqual(["w", "s"]);
    expect(list.runs.map((l) => l.finding.id)).toEqual(["r1", "r2"]);
    expect(list.more).toBeNull();
  });

  it("lists the running queries with the most time left first, whatever their severity", () => {
    const withLeft = (id: string, severity: Finding["severity"], etaMs: number | null) => ({ ...f(id, severity, id), evidence: { etaMs } });
    const list = findingList(
      {
        asOf: 0,
        findings: [
          withLeft("1:1", "act", 2000),
          withLeft("2:2", "info", 9000),
          withLeft("3:3", "act", null),
          withLeft("4:4", "note", 5000),
        ],
        moreRuns: 0,
      },
      "demo",
      0,
      true,
    );
    expect(list.runs.map((l) => l.finding.id)).toEqual(["2:2", "4:4", "1:1", "3:3"]);
  });

  it("shows 3 running queries, then 'and N more running', all when asked", () => {
    const runs = ["1:1", "2:2", "3:3", "4:4"].map((id) => f(id, "info", id));
    const list = findingList({ asOf: 0, findings: runs, moreRuns: 2 }, "demo", 0);
    expect(list.runs).toHaveLength(3);
    expect(list.more).toBe("and 3 more running");
    const all = findingList({ asOf: 0, findings: runs, moreRuns: 2 }, "demo", 0, true);
    expect(all.runs).toHaveLength(4);
    expect(all.more).toBe("and 2 more running");
  });

  it("links a run's finding to its row and timeline, and says how long it has held", () => {
    const [line] = findingList({ asOf: 0, findings: [f("x", "info", "4812:1700000000000", 1000)], moreRuns: 0 }, "demo", 13_000).runs;
    expect(line.href).toBe("/targets/demo?run=4812%3A1700000000000");
    expect(line.since).toBe("for 12 s");
  });
});

describe("heldFor / runHref", () => {
  it.each([
    [0, 500, "just now"],
    [0, 12_000, "for 12 s"],
    [0, 95_000, "for 1 min 35 s"],
  ])("%i -> %i: %s", (since, now, want) => expect(heldFor(since, now)).toBe(want));
  it("escapes the target id", () => expect(runHref("a b", "1:2")).toBe("/targets/a%20b?run=1%3A2"));
});
