import { describe, expect, it } from "vitest";
import type { LabRun } from "../../schemas/lab";
import { explainFigures, planRelations, planWrites } from "./explain";
import { runsCsv, summaryTable } from "./export";
import { customSqlProblem } from "./sql";
import { labOrder, median, summarize } from "./summary";

// Trimmed from PostgreSQL 18.4's EXPLAIN (ANALYZE, BUFFERS, VERBOSE, FORMAT JSON) of the demo's cold scan.
const EXPLAIN = [
  {
    Plan: {
      "Node Type": "Aggregate",
      "Shared Hit Blocks": 0,
      "Shared Read Blocks": 8192,
      "Shared I/O Read Time": 107.918,
      Plans: [
        {
          "Node Type": "Seq Scan",
          "Relation Name": "readings",
          Schema: "public",
          "Shared Read Blocks": 8192,
          "Shared I/O Read Time": 107.918,
        },
      ],
    },
    "Planning Time": 0.373,
    Triggers: [],
    "Execution Time": 509.14,
  },
];

describe("EXPLAIN output", () => {
  it("gives the run's figures from the top node", () => {
    expect(explainFigures(EXPLAIN)).toEqual({
      executionMs: 509.14,
      planningMs: 0.373,
      readWaitMs: 107.918,
      sharedRead: 8192,
      sharedHit: 0,
    });
  });
  it("has no read wait without track_io_timing, and refuses a plan without ANALYZE", () => {
    const { "Shared I/O Read Time": _t, ...untimed } = EXPLAIN[0].Plan;
    expect(explainFigures([{ ...EXPLAIN[0], Plan: untimed }]).readWaitMs).toBeNull();
    expect(() => explainFigures([{ Plan: EXPLAIN[0].Plan }])).toThrow(/no Execution Time/);
  });
  it("names the tables a plan reads, and a node that writes", () => {
    expect(planRelations(EXPLAIN)).toEqual([{ schema: "public", name: "readings" }]);
    expect(planWrites(EXPLAIN)).toBeNull();
    expect(planWrites([{ Plan: { "Node Type": "ModifyTable", Plans: [{ "Node Type": "Seq Scan" }] } }])).toBe("ModifyTable");
  });
});

describe("custom SQL", () => {
  it.each([
    ["SELECT count(*) FROM t", null],
    ["  with x as (select 1) select * from x; ", null],
    ["-- a comment\nSELECT ';' FROM t", null],
    ["DELETE FROM t", "must be one read-only SELECT, not DELETE"],
    ["SELECT 1; DROP TABLE t", "must be one statement (no ; between statements)"],
    ["SELECT * INTO t2 FROM t", "must not create a table (SELECT INTO)"],
    ["SELECT * FROM t FOR UPDATE", "must not lock rows (FOR UPDATE / FOR SHARE)"],
    ["/* only */", "is empty"],
  ])("%j -> %s", (sql, want) => {
    expect(customSqlProblem(sql)).toBe(want);
  });
});

const run = (round: number, method: LabRun["method"], executionMs: number, readWaitMs: number | null): LabRun => ({
  round,
  method,
  executionMs,
  planningMs: 0.2,
  readWaitMs,
  readShare: readWaitMs === null ? null : readWaitMs / executionMs,
  sharedRead: 100,
  sharedHit: 2,
  at: Date.UTC(2026, 0, 1),
});

describe("the lab's table", () => {
  it("takes the median of EXPLAIN's execution times, with min and max beside it", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    const runs = [
      run(1, "sync", 500, 150),
      run(1, "worker", 330, 20),
      run(2, "worker", 340, 30),
      run(2, "sync", 520, 160),
      run(3, "sync", 490, 140),
      run(3, "worker", 600, 25),
    ];
    const [sync, worker] = summarize(runs, ["sync", "worker"]);
    expect(sync).toMatchObject({ method: "sync", runs: 3, medianMs: 500, minMs: 490, maxMs: 520, readWaitMs: 150, versus: null });
    expect(worker).toMatchObject({ medianMs: 340, minMs: 330, maxMs: 600, readWaitMs: 25 });
    expect(worker.versus).toEqual({ change: -0.32, outside: false, text: "32% faster than sync (within the spread)" });
    const outside = summarize([run(1, "sync", 500, 1), run(1, "worker", 300, 1)], ["sync", "worker"])[1].versus;
    expect(outside?.text).toBe("40% faster than sync (outside the spread)");
  });

  it("has methods take turns within each round, the order moving on each round", () => {
    expect(labOrder(["sync", "worker", "io_uring"], 2).map((s) => `${s.round}:${s.method}`)).toEqual([
      "1:sync",
      "1:worker",
      "1:io_uring",
      "2:worker",
      "2:io_uring",
      "2:sync",
    ]);
  });

  it("prints the table and the runs as CSV", () => {
    const summary = summarize([run(1, "sync", 500, 150), run(1, "worker", 330, null)], ["sync", "worker"]);
    const table = summaryTable(summary).split("\n");
    expect(table[0]).toMatch(/^io_method\s+runs\s+median\s+spread \(min–max\)\s+read wait\s+read share\s+blocks read\s+against the first$/);
    expect(table[1]).toMatch(/^sync\s+1\s+500 ms\s+500 ms – 500 ms\s+150 ms\s+30%\s+100\s+–$/);
    expect(table[2]).toMatch(/^worker\s+1\s+330 ms .* unknown\s+unknown\s+100\s+34% faster than sync \(outside the spread\)$/);
    expect(runsCsv([run(1, "sync", 500, null)])).toBe(
      "round,method,execution_ms,planning_ms,read_wait_ms,read_share,shared_read,shared_hit,at\n1,sync,500,0.2,,,100,2,2026-01-01T00:00:00.000Z\n",
    );
  });
});
