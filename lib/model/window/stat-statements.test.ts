import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  countersStatement,
  isOwn,
  OWN_MARKER,
  ownCallCosts,
  ownSpent,
  ownStatement,
  statementDeltas,
  statementsNote,
  versionAtLeast,
} from "./stat-statements";

const row = (queryid: string, calls: number, exec: number, read: number, blks: number) => ({
  own: false,
  own_calls: 0,
  own_exec_time: 0,
  queryid,
  calls,
  total_exec_time: exec,
  exec_time_sq: exec * exec,
  read_time: read,
  shared_blks_read: blks,
  shared_blks_hit: 0,
});

describe("pg_stat_statements versions", () => {
  it.each([
    ["1.12", "stat_statements"],
    ["1.11", "stat_statements"],
    ["1.10", "stat_statements_legacy"],
    ["1.8", "stat_statements_legacy"],
    ["1.7", null],
  ])("%s -> %s", (version, want) => {
    expect(countersStatement(version)).toBe(want);
  });

  it("compares versions part by part", () => {
    expect(versionAtLeast("1.10", "1.9")).toBe(true);
    expect(versionAtLeast("1.9", "1.10")).toBe(false);
  });
});

describe("statementDeltas", () => {
  const texts = new Map([["1", "SELECT $1"]]);

  it("gives the read share over the window", () => {
    const [s] = statementDeltas(new Map([["1", row("1", 2, 100, 40, 10)]]), new Map([["1", row("1", 4, 300, 140, 30)]]), texts, true);
    expect(s).toMatchObject({ queryId: "1", calls: 2, totalExecTime: 200, readTime: 100, sharedBlksRead: 20, readShare: 0.5 });
  });

  it("says unknown, not zero, when track_io_timing is off on the server", () => {
    const [s] = statementDeltas(new Map(), new Map([["1", row("1", 1, 100, 0, 10)]]), texts, false);
    expect(s.readTime).toBeNull();
    expect(s.readShare).toBeNull();
  });

  it("says unknown when blocks were read in no time (timing off in that session)", () => {
    const [untimed] = statementDeltas(new Map(), new Map([["1", row("1", 1, 100, 0, 10)]]), texts, true);
    expect(untimed.readTime).toBeNull();
    const [cached] = statementDeltas(new Map(), new Map([["1", row("1", 1, 100, 0, 0)]]), texts, true);
    expect(cached.readTime).toBe(0);
  });
});

describe("statementsNote", () => {
  it("says how to turn timing on", () => {
    expect(statementsNote(false, [])).toMatch(/track_io_timing is off.*ALTER SYSTEM SET track_io_timing = on/);
    const stat = {
      queryId: "1",
      query: "",
      calls: 1,
      totalExecTime: 1,
      readTime: null,
      sharedBlksRead: 1,
      sharedBlksHit: 0,
      readShare: null,
    };
    expect(statementsNote(true, [stat])).toMatch(/1 statement read blocks with track_io_timing off in their session/);
    expect(statementsNote(true, [{ ...stat, readTime: 1, readShare: 1 }])).toBeNull();
  });
});

describe("the collector's own statements", () => {
  const dir = path.resolve("sql");
  it.each(readdirSync(dir).filter((f) => f.endsWith(".sql")))("%s carries the marker after its first token", (file) => {
    const text = readFileSync(path.join(dir, file), "utf8");
    // pg_stat_statements keeps the text from the first token on: the marker must be there.
    const body = text.replace(/^(\s*--[^\n]*\n)*/, "");
    expect(OWN_MARKER.exec(body.slice(0, 80))?.[1]).toBe(file.replace(/\.sql$/, ""));
    expect(isOwn(body)).toBe(true);
    expect(ownStatement(body)).toBe(file.replace(/\.sql$/, ""));
  });
});

describe("ownCallCosts", () => {
  const own = (queryid: string, calls: number, exec: number) => ({
    ...row(queryid, calls, exec, 0, 0),
    own: true,
    own_calls: calls,
    own_exec_time: exec,
  });
  const names = new Map([
    ["a", "aios"],
    ["b", "activity"],
  ]);
  const nameOf = (id: string) => names.get(id) ?? null;

  it("learns nothing from an entry's first read: its mean spans the entry's whole life", () => {
    // 10 000 calls at 6 ms from before a restart with other settings.
    expect(ownCallCosts(new Map(), [own("a", 10_000, 60_000)], nameOf)).toEqual([]);
  });

  it("gives the server time per call between two reads, own entries only", () => {
    const before = new Map([
      ["a", own("a", 10_000, 60_000)],
      ["b", own("b", 100, 10)],
      ["c", row("c", 1, 1, 0, 0)],
    ]);
    const now = [own("a", 10_050, 60_000 + 50 * 0.4), own("b", 100, 10), row("c", 5, 100, 0, 0)];
    expect(ownCallCosts(before, now, nameOf)).toEqual([
      { name: "aios", calls: 50, ms: expect.closeTo(20, 9), msPerCall: expect.closeTo(0.4, 9) },
    ]);
  });

  it("takes this role's share of an entry another role runs too: the bench's bare runs of the file, another inflight", () => {
    // 50 calls of ours at 0.4 ms; the same file, as another role, 50 calls at 4 ms.
    const shared = (calls: number, exec: number, mine: number, mineMs: number) => ({
      ...row("a", calls, exec, 0, 0),
      own: true,
      own_calls: mine,
      own_exec_time: mineMs,
    });
    const before = new Map([["a", shared(1_000, 1_000, 500, 200)]]);
    expect(ownCallCosts(before, [shared(1_100, 1_000 + 20 + 200, 550, 220)], nameOf)).toEqual([
      { name: "aios", calls: 50, ms: expect.closeTo(20, 9), msPerCall: expect.closeTo(0.4, 9) },
    ]);
  });

  it("learns nothing across a reset (calls went down)", () => {
    expect(ownCallCosts(new Map([["a", own("a", 500, 100)]]), [own("a", 3, 9)], nameOf)).toEqual([]);
  });
});

describe("ownSpent", () => {
  it("is our calls' share of an entry that others' calls of the same statement are in too", () => {
    // 100 targets on one database: 1,000 calls in the delta at 0.2 ms, 10 of them ours.
    expect(ownSpent({ ms: 200, msPerCall: 0.2 }, 10)).toBeCloseTo(2, 9);
    // alone on the server: the whole delta
    expect(ownSpent({ ms: 20, msPerCall: 0.2 }, 100)).toBeCloseTo(20, 9);
  });

  it("is never more than the delta (our calls that pg_stat_statements did not count: an error, an evicted entry), nor under zero", () => {
    expect(ownSpent({ ms: 20, msPerCall: 0.2 }, 150)).toBe(20);
    expect(ownSpent({ ms: 20, msPerCall: 0.2 }, 0)).toBe(0);
    expect(ownSpent({ ms: 20, msPerCall: 0.2 }, -3)).toBe(0);
  });
});
