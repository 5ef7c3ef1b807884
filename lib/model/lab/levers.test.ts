import { describe, expect, it } from "vitest";
import { LabStartBody } from "../../schemas/params";
import type { LabRun } from "../../schemas/lab";
import { summaryTable } from "./export";
import { leverMissing, leverValuesProblem, leversOf } from "../../schemas/levers";
import { labResult } from "./result";
import { summarize } from "./summary";

describe("the lab's levers", () => {
  it.each([
    ["io_workers", 18, null],
    [
      "io_workers",
      19,
      "io_workers does not exist on PostgreSQL 19 (19 sizes its io worker pool itself: compare io_min_workers or io_max_workers)",
    ],
    ["io_max_workers", 18, "io_max_workers does not exist on PostgreSQL 18 (18 has a fixed number of io workers: compare io_workers)"],
    ["io_min_workers", 19, null],
    ["effective_io_concurrency", 18, null],
    ["effective_io_concurrency", 19, null],
  ] as const)("%s on %i -> %s", (lever, major, want) => {
    expect(leverMissing(lever, major)).toBe(want);
  });

  it.each([
    ["io_workers", ["1", "3"], null],
    ["io_workers", ["0", "3"], "io_workers must be a whole number from 1 to 32, not 0"],
    ["io_workers", ["1", "33"], "io_workers must be a whole number from 1 to 32, not 33"],
    ["io_workers", ["1", "1"], "names a value twice"],
    ["effective_io_concurrency", ["1", "16"], null],
    ["effective_io_concurrency", ["1.5"], "effective_io_concurrency must be a whole number from 0 to 1000, not 1.5"],
    ["effective_io_concurrency", ["1001"], "effective_io_concurrency must be a whole number from 0 to 1000, not 1001"],
    ["io_method", ["sync", "worker"], null],
    ["io_method", ["posix"], "posix is not an io_method (sync, worker, io_uring)"],
    ["io_max_workers", [], "needs at least one value"],
  ] as const)("%s %j -> %s", (lever, values, want) => {
    expect(leverValuesProblem(lever, values)).toBe(want);
  });

  it("offers each major its own levers and presets", () => {
    expect(leversOf(18)).toMatchObject({ levers: ["io_method", "io_workers", "effective_io_concurrency"] });
    expect(leversOf(18).presets.map((p) => p.id)).toEqual(["io_method", "io_workers", "effective_io_concurrency"]);
    expect(leversOf(19).presets.map((p) => p.id)).toEqual(["io_method", "io_max_workers", "effective_io_concurrency"]);
  });

  it("takes a request's lever, values and sessions, 4 at once by default for the io worker levers", () => {
    expect(LabStartBody.parse({ query: "seq", methods: ["sync", "worker"] })).toMatchObject({
      lever: "io_method",
      values: ["sync", "worker"],
      concurrency: 1,
      runs: 5,
    });
    expect(LabStartBody.parse({ query: "seq", lever: "io_workers", values: [1, 3], runs: 3 })).toMatchObject({
      values: ["1", "3"],
      concurrency: 4,
    });
    expect(LabStartBody.parse({ query: "seq", lever: "effective_io_concurrency", values: ["1", "16"] })).toMatchObject({ concurrency: 1 });
    const issues = (body: unknown) => LabStartBody.safeParse(body).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(issues({ query: "seq", lever: "io_workers", methods: ["sync"] })).toEqual([
      "methods: is only for lever = io_method (give values)",
    ]);
    expect(issues({ query: "seq", lever: "io_workers" })).toEqual(["values: is needed: the lever's values to compare"]);
    expect(issues({ query: "seq", lever: "io_workers", values: [1, 40] })).toEqual([
      "values: io_workers must be a whole number from 1 to 32, not 40",
    ]);
    expect(issues({ query: "seq", lever: "io_workers", values: [1, 3], concurrency: 17 })?.[0]).toMatch(/^concurrency: /);
  });
});

const run = (round: number, value: string, executionMs: number): LabRun => ({
  round,
  method: "worker",
  value,
  executionMs,
  sessionsMs: [executionMs - 10, executionMs, executionMs + 10],
  planningMs: 0.2,
  readWaitMs: executionMs / 2,
  readShare: 0.5,
  sharedRead: 100,
  sharedHit: 0,
  at: Date.UTC(2026, 0, 1),
});

describe("a lever's table and its result for the history", () => {
  const runs = [run(1, "1", 5500), run(1, "3", 4400), run(2, "3", 4200), run(2, "1", 5700), run(3, "1", 5300), run(3, "3", 4700)];

  it("has a row per value, the first column the lever's, each value against the first", () => {
    const summary = summarize(runs, ["1", "3"], "io_workers");
    expect(summary.map((s) => [s.value, s.runs, s.medianMs, s.minMs, s.maxMs])).toEqual([
      ["1", 3, 5500, 5300, 5700],
      ["3", 3, 4400, 4200, 4700],
    ]);
    expect(summary[1].versus?.text).toBe("20% faster than io_workers = 1 (outside the spread)");
    const table = summaryTable(summary, "io_workers").split("\n");
    expect(table[0]).toMatch(/^io_workers\s+runs\s+median\s+spread/);
    expect(table[2]).toMatch(/^3\s+3\s+4\.4 s\s+4\.2 s – 4\.7 s\s/);
  });

  it("keeps the medians and spread of every value, or nothing while a value has no run", () => {
    const context = {
      at: 1,
      lever: "io_workers",
      values: ["1", "3"],
      concurrency: 4,
      rounds: 3,
      query: "seq",
      sql: "SELECT 1",
      ioMethod: "worker",
      serverVersion: "18.4",
    } as const;
    expect(labResult(summarize(runs, ["1", "3"], "io_workers"), context)).toEqual({
      at: 1,
      lever: "io_workers",
      rows: [
        { value: "1", runs: 3, medianMs: 5500, minMs: 5300, maxMs: 5700, readShare: 0.5 },
        { value: "3", runs: 3, medianMs: 4400, minMs: 4200, maxMs: 4700, readShare: 0.5 },
      ],
      concurrency: 4,
      rounds: 3,
      query: "seq",
      sql: "SELECT 1",
      ioMethod: "worker",
      serverVersion: "18.4",
    });
    expect(labResult(summarize(runs.slice(0, 1), ["1", "3"], "io_workers"), context)).toBeNull();
    expect(labResult(summarize(runs, ["1", "3"], "io_workers"), { ...context, lever: "io_method" })?.ioMethod).toBeNull();
  });
});
