import { describe, expect, it } from "vitest";
import type { Settings } from "../schemas/settings";
import { target } from "../../test/support/fixtures";
import { TargetWindow } from "./window";

const settings = (method: string): Settings => ({
  io_method: { setting: method, display: method, unit: null, source: "configuration file", pendingRestart: false, enumvals: ["sync", "worker"] },
});

describe("TargetWindow findings", () => {
  // Issue 19: "Restart ... for 31 s" on a server started 13 s ago: the second restart kept the first one's since.
  it("dates each restart's finding from that restart, not from an earlier one's", () => {
    const w = new TargetWindow(600_000);
    w.setServerState(1_000, settings("worker"), 500);
    w.setServerState(20_000, settings("sync"), 19_000);
    w.refreshFindings(20_000, target({ postmasterStart: 19_000 }));
    const first = w.findings.findings.find((f) => f.rule === "restart_applied");
    expect(first?.since).toBe(20_000);
    w.setServerState(60_000, settings("worker"), 58_000);
    w.refreshFindings(60_000, target({ postmasterStart: 58_000 }));
    const second = w.findings.findings.find((f) => f.rule === "restart_applied");
    expect(second?.text).toContain("sync -> worker");
    expect(second?.since).toBe(60_000);
    expect(w.findings.asOf).toBe(60_000);
  });
});
