import { describe, expect, it } from "vitest";
import { run, target } from "../../../test/support/fixtures";
import type { MethodMeasure } from "../../history/measured";
import { methodMeasures } from "../../history/measured";
import type { CompareResponse } from "../../schemas/history";
import type { QueryRun } from "../../schemas/runs";
import type { Restart } from "../../schemas/settings";
import { toSettings } from "../settings";
import { computeFindings, type FindingsInput } from "./index";
import { methodAt } from "./method-evidence";

const NOW = 1_000_000;
const AT = Date.UTC(2026, 0, 10, 18, 35, 42);
const sync = toSettings([{ name: "io_method", setting: "sync", unit: null, source: "default", pending_restart: false, enumvals: null, vartype: "string" }]);
const scan = run({ id: "42:960000", pid: 42, queryId: "7", query: "SELECT count(*) FROM big", startedAt: NOW - 40_000, samples: 400, readWaitSamples: 300, syncSamples: 300, syncReadBytes: 122_880, verdict: "sync" });
const measure = (over: Partial<MethodMeasure>): MethodMeasure => ({ at: AT, before: { ioMethod: "worker", meanMs: 6300, calls: 6 }, after: { ioMethod: "sync", meanMs: 8600, calls: 6 }, verdict: "slower by 37% (6 vs 6 calls; outside the spread)", kind: "slower", ...over });
const input = (over: Partial<FindingsInput> = {}): FindingsInput => ({ now: NOW, target: target({ postmasterStart: NOW - 100_000 }), settings: sync, restarts: [], statements: [], runs: [scan], recent: [], ...over });
const finding = (i: FindingsInput) => computeFindings(i).findings.find((f) => f.runId);

/** A restart at `at` from worker to sync. */
const toSync = (at: number): Restart => ({ at, seenAt: at + 500, changes: [{ name: "io_method", before: "worker", after: "sync" }] });
/** An ended run of the same statement, `ms` long, started at `at`. */
const ended = (at: number, ms: number, id = `${at}`): QueryRun => run({ id: `9:${id}`, pid: 9, queryId: "7", query: scan.query, startedAt: at, endedAt: at + ms, lastSeen: at + ms, verdict: "sync" });

describe("io_method advice checked against this server's own history", () => {
  it("the same statement under worker and sync at the same times in the window: no advice to switch, and what it saw", () => {
    const restart = toSync(NOW - 100_000);
    const runs = [ended(NOW - 400_000, 13_000), ended(NOW - 350_000, 16_000), ended(NOW - 300_000, 14_000), ended(NOW - 90_000, 13_000), scan];
    const f = finding(input({ runs, restarts: [restart] }));
    expect(f?.rule).toBe("io_method_sync");
    expect(f?.severity).toBe("info");
    expect(f?.glance.lever).toBe("not io_method: worker was no faster here");
    expect(f?.text).toContain("under worker: 13-16 s, 3 runs; under sync: 13 s, 1 run");
    expect(f?.text).toContain("io_method is not the lever here");
    expect(f?.text).not.toMatch(/set io_method = worker/);
  });

  it("worker measured faster in the window: advised, with the figures", () => {
    const runs = [ended(NOW - 400_000, 5_000), ended(NOW - 350_000, 6_000), ended(NOW - 90_000, 13_000), scan];
    const f = finding(input({ runs, restarts: [toSync(NOW - 100_000)] }));
    expect(f?.severity).toBe("act");
    expect(f?.glance.lever).toBe("io_method = worker: faster here");
    expect(f?.text).toContain("under worker: 5.0-6.0 s, 2 runs; under sync: 13 s, 1 run");
    expect(f?.text).toContain("set io_method = worker (a restart applies it)");
  });

  it("with no runs to compare, the history's before/after decides: worker faster there is cited", () => {
    const f = finding(input({ measured: new Map([["7", measure({})]]) }));
    expect(f?.severity).toBe("act");
    expect(f?.text).toContain("pg_stat_statements here: 6.3 s under worker against 8.6 s under sync (slower by 37% (6 vs 6 calls; outside the spread))");
  });

  it("the history's before/after with no difference: not advised", () => {
    const f = finding(input({ measured: new Map([["7", measure({ kind: "same", after: { ioMethod: "sync", meanMs: 6400, calls: 6 }, verdict: "no measurable difference (within the spread)" })]]) }));
    expect(f?.severity).toBe("info");
    expect(f?.glance.lever).toBe("not io_method: worker was no faster here");
  });

  it("nothing measured here: says so and offers the lab, quoting no figure from elsewhere", () => {
    const f = finding(input({ measured: new Map([["8", measure({})]]) }));
    expect(f?.severity).toBe("warn");
    expect(f?.text).toMatch(/unmeasured here: measure it on a copy with the lab \(npm run lab, or the lab button of the demo\)\.$/);
    expect(f?.text).not.toMatch(/published|labs:|\d+-\d+%/);
  });

  it("the io_method of a moment follows the restarts that changed it", () => {
    const restarts = [toSync(100), { at: 200, seenAt: 201, changes: [{ name: "io_method", before: "sync", after: "io_uring" }] }];
    expect([methodAt(50, restarts, "io_uring"), methodAt(150, restarts, "io_uring"), methodAt(250, restarts, "io_uring")]).toEqual(["worker", "sync", "io_uring"]);
    expect(methodAt(50, [], "sync")).toBe("sync");
  });

  it("takes from a comparison only the restart that changed io_method, and statements with enough calls on both sides", () => {
    const side = (calls: number, meanMs: number) => ({ calls, meanMs, sdMs: 1, readShare: 0.5, blocksReadPerCall: 10 });
    const row = (queryId: string, calls: number, housekeeping = false) => ({ queryId, query: "q", before: side(calls, 6300), after: side(calls, 8600), verdict: { kind: "slower" as const, change: 0.37, text: "slower" }, stakeMs: 1, housekeeping });
    const c = { restart: { at: AT, seenAt: AT + 1000, changes: [] }, changes: [{ name: "io_method", before: "worker", after: "sync" }], rows: [row("7", 6), row("8", 2), row("9", 50, true)] } as unknown as CompareResponse;
    expect([...methodMeasures(c).keys()]).toEqual(["7"]);
    expect(methodMeasures(c).get("7")?.kind).toBe("slower");
    expect(methodMeasures({ ...c, changes: [{ name: "io_workers", before: "3", after: "1" }] }).size).toBe(0);
  });
});
