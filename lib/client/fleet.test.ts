import { describe, expect, it } from "vitest";
import { clockOffset } from "./api";
import { fleetRow, recentWindowUrl } from "./fleet";
import { target, tick } from "./fixtures";

describe("fleetRow", () => {
  it("reads the newest tick and the pending restarts", () => {
    const settings = { io_method: { setting: "worker", unit: null, source: "default", pendingRestart: true, display: "worker", enumvals: null } };
    const row = fleetRow(target(), { ticks: [tick(1, 100), tick(2, 200, { aio: { inFlight: 5, sync: 1 } })], settings });
    expect(row).toMatchObject({ inFlight: 5, syncInFlight: 1, sampledAt: 200, pendingRestarts: ["io_method"] });
  });
  it("says unknown, not zero, without a sample", () => {
    expect(fleetRow(target(), null)).toMatchObject({ inFlight: null, sampledAt: null, pendingRestarts: [] });
  });
  it("asks for the recent seconds only", () => expect(recentWindowUrl("a b", 100_000, 15_000)).toBe("/api/targets/a%20b/window?from=85000"));
});

describe("clockOffset", () => {
  const now = Date.parse("2025-06-01T12:00:00.000Z");
  it.each([
    { name: "same clock", header: "Sun, 01 Jun 2025 12:00:00 GMT", offset: 0 },
    { name: "server 1 min ahead", header: "Sun, 01 Jun 2025 12:01:00 GMT", offset: 60_500 },
    { name: "no header", header: null, offset: 0 },
    { name: "garbage", header: "soon", offset: 0 },
  ])("$name", ({ header, offset }) => expect(clockOffset(header, now, now)).toBe(offset));
});
