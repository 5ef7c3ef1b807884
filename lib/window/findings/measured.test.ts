import { describe, expect, it } from "vitest";
import { run, target } from "../../../test/support/fixtures";
import type { MethodMeasure } from "../../history/measured";
import { methodMeasures } from "../../history/measured";
import type { CompareResponse } from "../../schemas/history";
import { toSettings } from "../settings";
import { computeFindings, type FindingsInput } from "./index";
import { measuredClause } from "./measured";

const NOW = 100_000;
const AT = Date.UTC(2026, 0, 10, 18, 35, 42);
const sync = toSettings([{ name: "io_method", setting: "sync", unit: null, source: "default", pending_restart: false, enumvals: null, vartype: "string" }]);
const scan = run({ id: "42:60000", pid: 42, queryId: "7", query: "SELECT count(*) FROM big", startedAt: NOW - 40_000, samples: 400, readWaitSamples: 300, syncSamples: 300, syncReadBytes: 122_880, verdict: "sync" });
const measure: MethodMeasure = { at: AT, before: { ioMethod: "worker", meanMs: 6300, calls: 6 }, after: { ioMethod: "sync", meanMs: 8600, calls: 6 }, verdict: "slower by 37% (6 vs 6 calls; outside the spread)" };
const input = (over: Partial<FindingsInput> = {}): FindingsInput => ({ now: NOW, target: target({ postmasterStart: NOW - 3_600_000 }), settings: sync, restarts: [], statements: [], runs: [scan], recent: [], ...over });
const finding = (i: FindingsInput) => computeFindings(i).findings.find((f) => f.runId);

describe("findings quote this server's own before/after", () => {
  it("names what the statement took under each io_method here, from the history", () => {
    const f = finding(input({ measured: new Map([["7", measure]]) }));
    expect(f?.rule).toBe("io_method_sync");
    expect(f?.text).toContain("this statement took 8.6 s under sync against 6.3 s under worker here (before/after ");
    expect(f?.text).toContain("): slower by 37% (6 vs 6 calls; outside the spread).");
  });

  it("says how to measure it when the history has no such comparison, and never quotes a figure from elsewhere", () => {
    const f = finding(input());
    expect(f?.text).toMatch(/measure it on a copy with the lab \(npm run lab, or the lab button of the demo\)\.$/);
    expect(f?.text).not.toMatch(/published|labs:|\d+-\d+%/);
    expect(measuredClause("8", new Map([["7", measure]]))).toBeNull();
  });

  it("takes from a comparison only the restart that changed io_method, and statements with enough calls on both sides", () => {
    const side = (calls: number, meanMs: number) => ({ calls, meanMs, sdMs: 1, readShare: 0.5, blocksReadPerCall: 10 });
    const row = (queryId: string, calls: number, housekeeping = false) => ({ queryId, query: "q", before: side(calls, 6300), after: side(calls, 8600), verdict: { kind: "slower" as const, change: 0.37, text: "slower" }, stakeMs: 1, housekeeping });
    const c = { restart: { at: AT, seenAt: AT + 1000, changes: [] }, changes: [{ name: "io_method", before: "worker", after: "sync" }], rows: [row("7", 6), row("8", 2), row("9", 50, true)] } as unknown as CompareResponse;
    expect([...methodMeasures(c).keys()]).toEqual(["7"]);
    expect(methodMeasures({ ...c, changes: [{ name: "io_workers", before: "3", after: "1" }] }).size).toBe(0);
  });
});
