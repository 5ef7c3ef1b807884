import { describe, expect, it } from "vitest";
import { TargetInfo } from "@/lib/schemas/target";
import { target } from "@/test/support/fixtures";
import { PANEL_FIELDS, samePanelTarget } from "./panel-target";

// The fields of a `target` event that change every second and that only the
// header shows: a panel typed PanelTarget cannot read them.
const HEADER_COUNTERS = ["achievedHz", "samples", "missed", "viewers", "cost", "history", "waitSampler"];

describe("the target as the panels read it", () => {
  it("names every field of TargetInfo as either a panel's or a header counter", () => {
    const fields = Object.keys(TargetInfo.shape).sort();
    expect([...PANEL_FIELDS, ...HEADER_COUNTERS].sort()).toEqual(fields);
  });

  it("is the same while only the header's counters and each aspect's last good read move", () => {
    const a = target();
    const b = target({
      achievedHz: 9.5,
      samples: 1234,
      missed: 3,
      viewers: 2,
      cost: { ...a.cost, msPerSecond: 4.4 },
      aspects: a.aspects.map((x) => ({ ...x, lastOkAt: 99_000 })),
      capabilities: { ...a.capabilities! },
    });
    expect(samePanelTarget(a, b)).toBe(true);
  });

  it("differs when anything a panel shows changes", () => {
    const a = target();
    const changed = [
      target({ status: "down", lastError: "connection refused" }),
      target({ statusSince: 5 }),
      target({ sampleMs: 120 }),
      target({ windowMs: 60_000 }),
      target({ ioMethod: "io_uring" }),
      target({ serverVersionNum: 190000 }),
      target({ capabilities: { ...a.capabilities!, aiosDenied: true } }),
      target({ capabilities: null }),
      target({
        aspects: a.aspects.map((x) => (x.aspect === "statements" ? { ...x, state: "failing", lastError: "permission denied" } : x)),
      }),
      target({ aspects: a.aspects.slice(1) }),
    ];
    for (const b of changed) expect(samePanelTarget(a, b)).toBe(false);
  });
});
