import { describe, expect, it } from "vitest";
import type { SampledBackend } from "../../schemas/rows";
import { target } from "../../../test/support/fixtures";
import { toSettings } from "./settings";
import { TargetWindow } from "./window";

const settings = toSettings([
  { name: "io_method", setting: "worker", unit: null, source: "default", pending_restart: false, enumvals: null, vartype: "enum" },
]);

/** A scan waiting on `event` (IO), its handles unknown (pg_aios not read in this sample). */
const scan = (event: string): SampledBackend => ({
  pid: 42,
  leader_pid: null,
  backend_type: "client backend",
  state: "active",
  wait_event_type: "IO",
  wait_event: event,
  query_id: "7",
  query_start_ms: 1000,
  state_change_ms: 1000,
  datname: "db",
  usename: "u",
  query: "SELECT count(*) FROM t",
  handles: null,
});

describe("the async reads check follows what the runs saw", () => {
  it("passes on a run waiting on IO:AioIoCompletion in a sample whose pg_aios the budget put off", () => {
    const w = new TargetWindow(60_000);
    w.setServerState(1000, settings, 500);
    w.addActivity(2000, [scan("AioIoCompletion")], "unknown");
    expect(w.queries()[0].verdict).toBe("async");
    w.refreshChecks(2000, null);
    expect(w.checks.find((c) => c.id === "async_observed")?.status).toBe("pass");
  });

  it("stays not observed on synchronous reads", () => {
    const w = new TargetWindow(60_000);
    w.setServerState(1000, settings, 500);
    w.addActivity(2000, [scan("DataFileRead")], "unknown");
    w.refreshChecks(2000, null);
    expect(w.checks.find((c) => c.id === "async_observed")).toMatchObject({
      status: "unknown",
      message: expect.stringMatching(/none of them async yet/),
    });
  });
});

const settingsOf = (method: string) =>
  toSettings([
    {
      name: "io_method",
      setting: method,
      unit: null,
      source: "configuration file",
      pending_restart: false,
      enumvals: ["sync", "worker"],
      vartype: "enum",
    },
  ]);

describe("TargetWindow findings", () => {
  // Issue 19: "Restart ... for 31 s" on a server started 13 s ago: the second restart kept the first one's since.
  it("dates each restart's finding from that restart, not from an earlier one's", () => {
    const w = new TargetWindow(600_000);
    w.setServerState(1_000, settingsOf("worker"), 500);
    w.setServerState(20_000, settingsOf("sync"), 19_000);
    w.refreshFindings(20_000, target({ postmasterStart: 19_000 }));
    const first = w.findings.findings.find((f) => f.rule === "restart_applied");
    expect(first?.since).toBe(20_000);
    w.setServerState(60_000, settingsOf("worker"), 58_000);
    w.refreshFindings(60_000, target({ postmasterStart: 58_000 }));
    const second = w.findings.findings.find((f) => f.rule === "restart_applied");
    expect(second?.text).toContain("sync -> worker");
    expect(second?.since).toBe(60_000);
    expect(w.findings.asOf).toBe(60_000);
  });
});

describe("the io workers across a restart", () => {
  const worker = (pid: number): SampledBackend => ({
    ...scan("IoWorkerMain"),
    pid,
    backend_type: "io worker",
    state: null,
    wait_event_type: "Activity",
    query_id: null,
    query_start_ms: null,
    state_change_ms: null,
    query: null,
    datname: null,
    usename: null,
  });

  it("marks no launch or exit when the server restarted: the new server's workers are not the pool growing", () => {
    const w = new TargetWindow(600_000);
    w.setServerState(1_000, settings, 500);
    w.addActivity(2_000, [worker(10), worker(11), worker(12)], "unknown");
    w.setServerState(5_000, settings, 4_000);
    const tick = w.addActivity(6_000, [worker(20), worker(21)], "unknown");
    expect(tick.workers).not.toHaveProperty("launched");
    expect(tick.workers).not.toHaveProperty("exited");
    expect(w.addActivity(7_000, [worker(20), worker(21), worker(22)], "unknown").workers.launched).toBe(1);
  });
});

describe("reloads", () => {
  const row = (name: string, setting: string, pending = false) => ({
    name,
    setting,
    unit: null,
    source: "configuration file",
    pending_restart: pending,
    enumvals: null,
    vartype: "string",
  });
  const of = (workers: string, method = "worker", pending = false) =>
    toSettings([row("io_method", method, pending), row("io_workers", workers)]);

  it("records a new pg_conf_load_time() on the same server start with what it changed in force, a pending setting left out", () => {
    const w = new TargetWindow(600_000);
    w.setServerState(1_000, of("3"), 500, null, 600);
    // The 30 s round with no reload, and a reload that changed nothing read: no event.
    w.setServerState(2_000, of("3"), 500, null, 600);
    w.setServerState(3_000, of("3"), 500, null, 2_900);
    expect(w.reloads).toEqual([]);
    w.setServerState(5_000, of("1", "worker", true), 500, null, 4_950);
    expect(w.reloads).toEqual([{ at: 4_950, seenAt: 5_000, changes: [{ name: "io_workers", before: "3", after: "1" }] }]);
  });

  it("a restart is not a reload, though pg_conf_load_time() moves with it", () => {
    const w = new TargetWindow(600_000);
    w.setServerState(1_000, of("3", "sync"), 500, null, 600);
    w.setServerState(9_000, of("3"), 8_000, null, 8_100);
    expect(w.reloads).toEqual([]);
    expect(w.restarts).toHaveLength(1);
    w.refreshFindings(9_000, target({ postmasterStart: 8_000 }));
    expect(w.findings.findings.map((f) => f.rule)).not.toContain("reload_applied");
  });

  it("the findings name the reload", () => {
    const w = new TargetWindow(600_000);
    w.setServerState(1_000, of("3"), 500, null, 600);
    w.setServerState(5_000, of("1"), 500, null, 4_950);
    w.refreshFindings(5_000, target({ postmasterStart: 500 }));
    expect(w.findings.findings.find((f) => f.rule === "reload_applied")?.text).toMatch(
      /^io_workers 3 -> 1 by a reload at \d\d:\d\d:\d\d\.$/,
    );
  });
});

describe("checks in the state of the findings", () => {
  const row = (name: string, setting: string, pending = false) => ({
    name,
    setting,
    unit: null,
    source: "configuration file",
    pending_restart: pending,
    enumvals: ["sync", "worker"],
    vartype: "string",
  });
  const of = (method: string, pending: boolean) => toSettings([row("io_method", method, pending), row("io_workers", "3")]);
  const pendingCheck = (w: TargetWindow) => w.checks.find((c) => c.id === "pending_restart");

  it("follows the findings of the same settings, never those of settings since changed", () => {
    const w = new TargetWindow(600_000);
    w.setServerState(1_000, of("worker", true), 500);
    w.refreshFindings(1_000, target({ postmasterStart: 500 }));
    w.refreshChecks(1_000, null);
    expect(pendingCheck(w)).toMatchObject({
      status: "act",
      message: expect.stringMatching(/^A setting waits for a restart \(see the finding above\)\. Waiting for a restart/),
    });
    // The restart: the pending finding of before it is not the new server's, until the findings are made again.
    w.setServerState(9_000, of("sync", false), 8_000);
    w.refreshChecks(9_000, null);
    expect(pendingCheck(w)?.status).toBe("pass");
    w.refreshFindings(9_000, target({ postmasterStart: 8_000 }));
    w.refreshChecks(9_000, null);
    expect(pendingCheck(w)?.status).toBe("pass");
  });
});

describe("the io_method advice weighs the statement's runs under each io_method, across a restart", () => {
  /** A run of the scan from `start`, sampled every 100 ms for `ms`, reading synchronously, then gone. */
  function runScan(w: TargetWindow, pid: number, start: number, ms: number): number {
    const row = (): SampledBackend => ({ ...scan("DataFileRead"), pid, query_start_ms: start, state_change_ms: start, query_id: "7" });
    let t = start;
    for (; t <= start + ms; t += 100) w.addActivity(t, [row()], "unknown");
    w.addActivity(t + 100, [], "unknown");
    return t + 200;
  }

  it("under sync, a statement twice as fast under worker before the restart is advised, with the figures", () => {
    const w = new TargetWindow(15 * 60_000);
    w.setServerState(1000, settingsOf("worker"), 500);
    let t = runScan(w, 41, 2_000, 900);
    t = runScan(w, 42, t + 1000, 1000);
    w.setServerState(t, settingsOf("sync"), t - 100);
    t = runScan(w, 43, t + 1000, 2500);
    // the second run under sync, still running
    const start = t + 1000;
    for (let s = start; s <= start + 1500; s += 100)
      w.addActivity(s, [{ ...scan("DataFileRead"), pid: 44, query_start_ms: start, state_change_ms: start }], "unknown");
    w.refreshFindings(start + 1500, target({ postmasterStart: t - 100 }));
    const f = w.findings.findings.find((x) => x.pid === 44);
    expect(f?.rule).toBe("io_method_sync");
    expect(f?.text).toMatch(/under worker: [\d.-]+ s, 2 runs; under sync: [\d.]+ s, 1 run/);
  });
});
