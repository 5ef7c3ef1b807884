import { describe, expect, it } from "vitest";
import type { SampledBackend } from "../schemas/rows";
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
