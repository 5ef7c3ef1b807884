import { describe, expect, it } from "vitest";
import type { Finding } from "@/lib/schemas/findings";
import { findingList, heldFor, runHref } from "./findings";

const f = (id: string, severity: Finding["severity"], runId?: string, since = 0): Finding => ({ id, rule: runId ? "async_reads" : "settings_unchanged", severity, text: id, evidence: {}, since, ...(runId ? { runId } : {}) });

describe("findingList", () => {
  it("puts the most severe first, keeping the server's order within a severity", () => {
    const list = findingList({ asOf: 0, findings: [f("r1", "info", "1:1"), f("s", "act"), f("r2", "info", "2:2"), f("w", "warn")], moreRuns: 0 }, "demo", 10_000);
    expect(list.lines.map((l) => l.finding.id)).toEqual(["s", "w", "r1", "r2"]);
    expect(list.more).toBeNull();
  });

  it("names at most 3 running queries, then 'and N more running'", () => {
    const runs = ["1:1", "2:2", "3:3", "4:4"].map((id) => f(id, "info", id));
    const list = findingList({ asOf: 0, findings: runs, moreRuns: 2 }, "demo", 0);
    expect(list.lines).toHaveLength(3);
    expect(list.more).toBe("and 3 more running");
  });

  it("links a run's finding to its row and timeline, and says how long it has held", () => {
    const [line] = findingList({ asOf: 0, findings: [f("x", "info", "4812:1700000000000", 1000)], moreRuns: 0 }, "demo", 13_000).lines;
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
