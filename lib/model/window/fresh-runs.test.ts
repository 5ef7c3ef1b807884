import { describe, expect, it } from "vitest";
import { FreshRuns } from "./fresh-runs";

describe("FreshRuns: what a burst of samples is for", () => {
  const runs = new Map<string, { endedAt: number | null; asyncSamples: number }>();
  const runOf = (id: string) => runs.get(id);

  it("waits on a new run until it is seen reading asynchronously in two samples, or ends", () => {
    const fresh = new FreshRuns();
    runs.set("1:a", { endedAt: null, asyncSamples: 1 });
    expect(fresh.observe([{ id: "1:a" }], new Set(), runOf)).toBe(true);
    expect(fresh.awaiting).toBe(true);
    // the next sample: not new any more, still one async sample short
    expect(fresh.observe([{ id: "1:a" }], new Set(["1:a"]), runOf)).toBe(false);
    expect(fresh.awaiting).toBe(true);
    runs.set("1:a", { endedAt: null, asyncSamples: 2 });
    fresh.observe([{ id: "1:a" }], new Set(["1:a"]), runOf);
    expect(fresh.awaiting).toBe(false);

    runs.set("2:b", { endedAt: null, asyncSamples: 0 });
    fresh.observe([{ id: "2:b" }], new Set(), runOf);
    expect(fresh.awaiting).toBe(true);
    runs.set("2:b", { endedAt: 5, asyncSamples: 0 }); // a statement that read nothing, ended
    fresh.observe([], new Set(["2:b"]), runOf);
    expect(fresh.awaiting).toBe(false);
  });

  it("does not wait on a run that was running before the sample, nor on one the window no longer has", () => {
    const fresh = new FreshRuns();
    runs.set("3:c", { endedAt: null, asyncSamples: 0 });
    expect(fresh.observe([{ id: "3:c" }], new Set(["3:c"]), runOf)).toBe(false);
    expect(fresh.awaiting).toBe(false);
    expect(fresh.observe([{ id: "4:d" }], new Set(), runOf)).toBe(true);
    expect(fresh.awaiting).toBe(false);
  });
});
