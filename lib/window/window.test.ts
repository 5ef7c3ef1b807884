import { describe, expect, it } from "vitest";
import type { SampledBackend } from "../schemas/rows";
import { target } from "../../test/support/fixtures";
import { toSettings } from "./settings";
import { TargetWindow } from "./window";

const settings = toSettings([{ name: "io_method", setting: "worker", unit: null, source: "default", pending_restart: false, enumvals: null, vartype: "enum" }]);

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
    expect(w.checks.find((c) => c.id === "async_observed")).toMatchObject({ status: "unknown", message: expect.stringMatching(/none of them async yet/) });
  });
});

const settingsOf = (method: string) => toSettings([{ name: "io_method", setting: method, unit: null, source: "configuration file", pending_restart: false, enumvals: ["sync", "worker"], vartype: "enum" }]);

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
  const worker = (pid: number): SampledBackend => ({ ...scan("IoWorkerMain"), pid, backend_type: "io worker", state: null, wait_event_type: "Activity", query_id: null, query_start_ms: null, state_change_ms: null, query: null, datname: null, usename: null });

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
