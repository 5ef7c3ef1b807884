import { describe, expect, it } from "vitest";
import { run, target } from "../../../../test/support/fixtures";
import type { MethodMeasure } from "../../compare/measured";
import { methodMeasures } from "../../compare/measured";
import type { CompareResponse } from "../../../schemas/compare";
import type { MethodRun } from "../method-runs";
import { MethodRuns } from "../method-runs";
import { toSettings } from "../settings";
import { computeFindings, type FindingsInput } from "./index";

const NOW = 1_000_000;
const AT = Date.UTC(2026, 0, 10, 18, 35, 42);
const sync = toSettings([
  { name: "io_method", setting: "sync", unit: null, source: "default", pending_restart: false, enumvals: null, vartype: "string" },
]);
const scan = run({
  id: "42:960000",
  pid: 42,
  queryId: "7",
  query: "SELECT count(*) FROM big",
  startedAt: NOW - 40_000,
  samples: 400,
  readWaitSamples: 300,
  syncSamples: 300,
  syncReadBytes: 122_880,
  verdict: "sync",
});
const measure = (over: Partial<MethodMeasure>): MethodMeasure => ({
  at: AT,
  before: { ioMethod: "worker", meanMs: 6300, calls: 6 },
  after: { ioMethod: "sync", meanMs: 8600, calls: 6 },
  verdict: "slower by 37% (6 vs 6 calls; outside the spread)",
  kind: "slower",
  ...over,
});
const input = (over: Partial<FindingsInput> = {}): FindingsInput => ({
  now: NOW,
  target: target({ postmasterStart: NOW - 100_000 }),
  settings: sync,
  restarts: [],
  statements: [],
  runs: [scan],
  recent: [],
  ...over,
});
const finding = (i: FindingsInput) => computeFindings(i).findings.find((f) => f.runId);

/** A slow run of the same statement, `ms` long, under `ioMethod`. */
const ended = (ioMethod: string, ms: number, endedAt = NOW - 100_000): MethodRun => ({
  queryId: "7",
  query: scan.query,
  ioMethod,
  ms,
  endedAt,
});

describe("io_method advice checked against this server's own history", () => {
  it("the same statement under worker and sync at the same times in the window: no advice to switch, and what it saw", () => {
    const methodRuns = [ended("worker", 13_000), ended("worker", 16_000), ended("worker", 14_000), ended("sync", 13_000)];
    const f = finding(input({ methodRuns }));
    expect(f?.rule).toBe("io_method_sync");
    expect(f?.severity).toBe("info");
    expect(f?.glance.lever).toBe("not io_method: worker was no faster here");
    expect(f?.text).toContain("under worker: 13-16 s, 3 runs; under sync: 13 s, 1 run");
    expect(f?.text).toContain("io_method is not the lever here");
    expect(f?.text).not.toMatch(/set io_method = worker/);
  });

  it("worker measured faster in the window: advised, with the figures", () => {
    const methodRuns = [ended("worker", 5_000), ended("worker", 6_000), ended("sync", 13_000)];
    const f = finding(input({ methodRuns }));
    expect(f?.severity).toBe("act");
    expect(f?.glance.lever).toBe("io_method = worker: faster here");
    expect(f?.text).toContain("under worker: 5.0-6.0 s, 2 runs; under sync: 13 s, 1 run");
    expect(f?.text).toContain("set io_method = worker (a restart applies it)");
  });

  it("with no runs to compare, the history's before/after decides: worker faster there is cited", () => {
    const f = finding(input({ measured: new Map([["7", measure({})]]) }));
    expect(f?.severity).toBe("act");
    expect(f?.text).toContain(
      "pg_stat_statements here: 6.3 s under worker against 8.6 s under sync (slower by 37% (6 vs 6 calls; outside the spread))",
    );
  });

  it("the history's before/after with no difference: not advised", () => {
    const f = finding(
      input({
        measured: new Map([
          [
            "7",
            measure({
              kind: "same",
              after: { ioMethod: "sync", meanMs: 6400, calls: 6 },
              verdict: "no measurable difference (within the spread)",
            }),
          ],
        ]),
      }),
    );
    expect(f?.severity).toBe("info");
    expect(f?.glance.lever).toBe("not io_method: worker was no faster here");
  });

  it("nothing measured here: says so and offers the lab, quoting no figure from elsewhere", () => {
    const f = finding(input({ measured: new Map([["8", measure({})]]) }));
    expect(f?.severity).toBe("note");
    expect(f?.text).toMatch(/unmeasured here: measure it on a copy with the lab \(npm run lab, or the lab button of the demo\)\.$/);
    expect(f?.text).not.toMatch(/published|labs:|\d+-\d+%/);
  });

  it("says a spread in one unit", () => {
    const f = finding(input({ methodRuns: [ended("worker", 816), ended("worker", 1100), ended("sync", 1600)] }));
    expect(f?.text).toContain("under worker: 0.8-1.1 s, 2 runs; under sync: 1.6 s, 1 run");
  });

  it("another statement's runs are not this one's", () => {
    const other = (ioMethod: string, ms: number): MethodRun => ({ queryId: "8", query: "SELECT 2", ioMethod, ms, endedAt: NOW });
    const f = finding(input({ methodRuns: [other("worker", 1000), other("sync", 9000)] }));
    expect(f?.glance.lever).toBe("io_method = worker? unmeasured here: try the lab");
  });

  it("keeps each statement's runs of 100 ms or more under the io_method in force, the latest ten under each, evicted by age", () => {
    const kept = new MethodRuns();
    const r = (id: string, ms: number, endedAt: number | null = 10_000 + ms) => run({ id, queryId: "7", startedAt: 10_000, endedAt });
    kept.note([r("a", 1500), r("b", 40), r("c", 2000, null)], "worker");
    kept.note([r("d", 3000)], "sync");
    kept.note([r("e", 3000)], undefined);
    expect(kept.all.map((x) => [x.ioMethod, x.ms])).toEqual([
      ["worker", 1500],
      ["sync", 3000],
    ]);
    kept.note(
      Array.from({ length: 12 }, (_, i) => r(`w${i}`, 200 + i)),
      "worker",
    );
    const worker = kept.of({ queryId: "7", query: "" }).filter((x) => x.ioMethod === "worker");
    expect(worker.map((x) => x.ms)).toEqual([202, 203, 204, 205, 206, 207, 208, 209, 210, 211]);
    expect(kept.of({ queryId: "7", query: "" }).filter((x) => x.ioMethod === "sync")).toHaveLength(1);
    kept.evictBefore(12_000);
    expect(kept.all.map((x) => x.ms)).toEqual([3000]);
  });

  it("takes from a comparison only the restart that changed io_method, and statements with enough calls on both sides", () => {
    const side = (calls: number, meanMs: number) => ({ calls, meanMs, sdMs: 1, readShare: 0.5, blocksReadPerCall: 10 });
    const row = (queryId: string, calls: number, housekeeping = false) => ({
      queryId,
      query: "q",
      before: side(calls, 6300),
      after: side(calls, 8600),
      verdict: { kind: "slower" as const, change: 0.37, text: "slower" },
      stakeMs: 1,
      housekeeping,
    });
    const c = {
      restart: { at: AT, seenAt: AT + 1000, changes: [] },
      changes: [{ name: "io_method", before: "worker", after: "sync" }],
      rows: [row("7", 6), row("8", 2), row("9", 50, true)],
    } as unknown as CompareResponse;
    expect([...methodMeasures(c).keys()]).toEqual(["7"]);
    expect(methodMeasures(c).get("7")?.kind).toBe("slower");
    expect(methodMeasures({ ...c, changes: [{ name: "io_workers", before: "3", after: "1" }] }).size).toBe(0);
  });
});
