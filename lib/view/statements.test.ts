import { describe, expect, it } from "vitest";
import type { StatementStat } from "@/lib/schemas/runs";
import { run } from "../../test/support/fixtures";
import { processesOf, readShare, readTimeUnknown, statementTable } from "./statements";

const stat = (
  queryId: string,
  totalExecTime: number,
  readTime: number | null,
  read = 0,
  hit = 0,
  query = `select q${queryId}`,
): StatementStat => ({
  queryId,
  query,
  calls: 1,
  totalExecTime,
  readTime,
  sharedBlksRead: read,
  sharedBlksHit: hit,
  readShare: readTime === null ? null : Math.min(1, readTime / totalExecTime),
});

describe("statementTable", () => {
  it("ranks by exec time and scales bars to the slowest", () => {
    const { rows } = statementTable([stat("a", 100, 20, 10, 30), stat("b", 400, 100), stat("c", 0, 0)]);
    expect(rows.map((r) => r.stat.queryId)).toEqual(["b", "a", "c"]);
    expect(rows.map((r) => r.execScale)).toEqual([1, 0.25, 0]);
    expect(rows.map((r) => r.readOfExec)).toEqual([0.25, 0.2, 0]);
    expect(rows.map((r) => r.hitRatio)).toEqual([null, 0.75, null]);
  });

  it("keeps unknown read time unknown", () => {
    const { rows } = statementTable([stat("a", 100, null)]);
    expect(rows[0].readOfExec).toBeNull();
    expect(rows[0].share.text).toBe("unknown");
    expect(readTimeUnknown([stat("a", 100, null)])).toBe(true);
    expect(readTimeUnknown([stat("a", 100, 0)])).toBe(false);
  });

  it("limits the rows", () =>
    expect(
      statementTable(
        Array.from({ length: 30 }, (_, i) => stat(String(i), i, 0)),
        [],
        20,
      ).rows,
    ).toHaveLength(20));

  // The demo's BEGIN / SET LOCAL / COMMIT filled the panel (issue 11).
  it("hides transaction control and SET housekeeping, and counts it", () => {
    const t = statementTable([
      stat("1", 5, 0, 0, 0, "BEGIN"),
      stat("2", 5, 0, 0, 0, "SET LOCAL enable_seqscan = off"),
      stat("3", 5, 0, 0, 0, "COMMIT"),
      stat("4", 900, 300),
    ]);
    expect(t.rows.map((r) => r.stat.queryId)).toEqual(["4"]);
    expect(t.hidden).toBe(3);
  });
});

// A parallel statement's read time is summed over its processes: above exec time it read as "100%" (issue 11).
describe("readShare of a parallel statement", () => {
  it("is per process when its runs show the workers", () => {
    const runs = [run({ queryId: "p", workerPids: [11, 12] }), run({ id: "x", queryId: "p", workerPids: [11] })];
    expect(processesOf("p", runs)).toBe(3);
    const s = readShare(stat("p", 1000, 2400), 3);
    expect(s.text).toBe("≈ 80% a process");
    expect(s.bar).toBeCloseTo(0.8);
    expect(s.summed).toBe(true);
    expect(s.title).toContain("summed over its 3 processes");
  });

  it("says so plainly when the processes were not seen", () => {
    const s = readShare(stat("p", 1000, 2400), null);
    expect(s.text).toBe("above exec time");
    expect(s.bar).toBeNull();
    expect(s.title).toMatch(/summed over the statement's parallel processes/);
  });

  it("is the plain share for a serial statement", () => {
    expect(readShare(stat("s", 1000, 220), 1)).toMatchObject({ text: "22%", summed: false });
    expect(processesOf("nope", [run()])).toBeNull();
  });
});
