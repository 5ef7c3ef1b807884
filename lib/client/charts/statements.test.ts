import { describe, expect, it } from "vitest";
import type { StatementStat } from "@/lib/schemas/runs";
import { rankStatements, readTimeUnknown } from "./statements";

const stat = (queryId: string, totalExecTime: number, readTime: number | null, read = 0, hit = 0): StatementStat => ({
  queryId,
  query: `q${queryId}`,
  calls: 1,
  totalExecTime,
  readTime,
  sharedBlksRead: read,
  sharedBlksHit: hit,
  readShare: readTime === null ? null : readTime / totalExecTime,
});

describe("rankStatements", () => {
  it("ranks by exec time and scales bars to the slowest", () => {
    const rows = rankStatements([stat("a", 100, 20, 10, 30), stat("b", 400, 100), stat("c", 0, 0)]);
    expect(rows.map((r) => r.stat.queryId)).toEqual(["b", "a", "c"]);
    expect(rows.map((r) => r.execScale)).toEqual([1, 0.25, 0]);
    expect(rows.map((r) => r.readOfExec)).toEqual([0.25, 0.2, 0]);
    expect(rows.map((r) => r.hitRatio)).toEqual([null, 0.75, null]);
  });

  it("keeps unknown read time unknown", () => {
    const rows = rankStatements([stat("a", 100, null)]);
    expect(rows[0].readOfExec).toBeNull();
    expect(readTimeUnknown([stat("a", 100, null)])).toBe(true);
    expect(readTimeUnknown([stat("a", 100, 0)])).toBe(false);
  });

  it("limits the rows", () => expect(rankStatements(Array.from({ length: 30 }, (_, i) => stat(String(i), i, 0)), 20)).toHaveLength(20));
});
