import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { LabRun } from "../../schemas/lab";
import { explainFigures } from "./explain";
import { readAheadLimits, scanIo } from "./explain-io";
import { runsCsv, summaryTable } from "./export";
import { summarize } from "./summary";

// Captured from Debian's postgresql-19 19~rc1-1: EXPLAIN (ANALYZE, BUFFERS, IO, FORMAT JSON) of a
// cold count(*) of a 200,000-row table, serial, and (VERBOSE) parallel with two workers.
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(import.meta.dirname, "fixtures", name), "utf8"));
const SERIAL = fixture("explain-io-19.json");
const PARALLEL = fixture("explain-io-19-parallel.json");

const run = (over: Partial<LabRun>): LabRun => ({
  round: 1,
  method: "worker",
  executionMs: 100,
  planningMs: 0.1,
  readWaitMs: 10,
  readShare: 0.1,
  sharedRead: 2000,
  sharedHit: 0,
  io: null,
  at: 0,
  ...over,
});

describe("PostgreSQL 19's EXPLAIN (IO)", () => {
  it("gives the seq scan node's prefetch distance and I/Os", () => {
    expect(scanIo(SERIAL)).toEqual({
      node: "Seq Scan",
      prefetchAvg: 3.401,
      prefetchMax: 15,
      capacity: 23,
      ioCount: 147,
      ioWaits: 101,
      ioSizeBlocks: 13.932,
      inProgress: 1,
    });
    expect(explainFigures(SERIAL).sharedRead).toBeGreaterThan(0);
  });

  it("under a parallel query, the node's own figures (the whole scan's), not one worker's", () => {
    expect(scanIo(PARALLEL)).toMatchObject({ node: "Seq Scan", prefetchMax: 21, capacity: 23, ioCount: 252, ioWaits: 99 });
  });

  it("18's EXPLAIN has none", () => {
    expect(scanIo([{ Plan: { "Node Type": "Seq Scan", Plans: [] }, "Execution Time": 1 }])).toBeNull();
  });

  it("the table and the CSV carry them per method; a distance at its capacity says read-ahead was the limit", () => {
    const io = scanIo(SERIAL)!;
    const runs = [run({ method: "sync", io: { ...io, prefetchAvg: 22.5 } }), run({ method: "worker", io })];
    const summary = summarize(runs, ["sync", "worker"]);
    expect(summary[1].io).toMatchObject({ prefetchAvg: 3.401, prefetchMax: 15, capacity: 23 });
    const table = summaryTable(summary);
    expect(table).toContain("prefetch (avg / max / capacity)");
    expect(table).toContain("3.4 / 15 / 23");
    expect(table).toContain("147 I/Os, 101 waited, 13.9 blocks, 1.0 in progress");
    expect(readAheadLimits(summary)).toEqual([
      "sync: the prefetch distance sat at its capacity (average 22.5 of 23): read-ahead was the limit: raise effective_io_concurrency",
    ]);
    const [header, , second] = runsCsv(runs).trim().split("\n");
    expect(header).toContain("prefetch_avg,prefetch_max,prefetch_capacity,io_count,io_waits,io_size_blocks,ios_in_progress");
    expect(second).toContain(",Seq Scan,3.401,15,23,147,101,13.932,1,");
  });

  it("on 18 the table and the CSV keep their columns", () => {
    const summary = summarize([run({})], ["worker"]);
    expect(summaryTable(summary)).not.toContain("prefetch");
    expect(readAheadLimits(summary)).toEqual([]);
    expect(runsCsv([run({})])).not.toContain("prefetch");
  });
});
