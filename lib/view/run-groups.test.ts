import { describe, expect, it } from "vitest";
import { run } from "../../test/support/fixtures";
import { groupRuns } from "./run-groups";

// The runs table filled with sub-second repeats hiding the slow running query (issue 11).
describe("groupRuns", () => {
  const slow = run({ id: "slow", endedAt: null, startedAt: 0, query: "select * from events" });
  const short = (i: number, over = {}) =>
    run({
      id: `s${i}`,
      queryId: "77",
      query: "select count(*) from t",
      startedAt: i * 1000,
      endedAt: i * 1000 + 200,
      verdict: "async",
      ...over,
    });

  it("groups ended runs under 1 s by statement, in place of the first", () => {
    const sorted = [slow, ...Array.from({ length: 64 }, (_, i) => short(i + 1)), run({ id: "long", endedAt: 9000, startedAt: 0 })];
    const rows = groupRuns(sorted);
    expect(rows.map((r) => (r.kind === "run" ? r.run.id : r.group.title))).toEqual(["slow", "64 runs under 1 s", "long"]);
    const g = rows[1].kind === "group" ? rows[1].group : null;
    expect(g?.query).toBe("select count(*) from t");
    expect(g?.verdicts).toEqual({ async: 64 });
    expect(g?.totalMs).toBe(64 * 200);
    expect(g?.lastEndedAt).toBe(64_200);
  });

  it("keeps a lone short run, running runs and runs of 1 s or more as rows", () => {
    const rows = groupRuns([short(1), run({ id: "r", endedAt: null }), run({ id: "one", startedAt: 0, endedAt: 1000 })]);
    expect(rows.map((r) => r.kind)).toEqual(["run", "run", "run"]);
  });

  it("groups by text when there is no query id", () => {
    const rows = groupRuns([short(1, { queryId: null, query: "select  1" }), short(2, { queryId: null, query: "select 1" })]);
    expect(rows).toHaveLength(1);
    expect(rows[0].kind).toBe("group");
  });
});
