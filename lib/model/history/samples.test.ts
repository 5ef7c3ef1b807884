import { describe, expect, it } from "vitest";
import type { Finding } from "../../schemas/findings";
import type { AioHandle, SampledBackend } from "../../schemas/rows";
import { TargetWindow } from "../window/window";
import { OPEN_REWRITE_MS, SampleRecorder, worstFinding, type WindowView } from "./samples";
import { activeBackend } from "../../../test/support/fixtures";

const scan = (handles: AioHandle[] | null): SampledBackend => activeBackend(10, 1000, { handles });
const handle = (last: number): AioHandle => ["SUBMITTED", "readv", 131072, false, `blocks ${last - 15}..${last} in file "base/5/100"`];

function viewOf(w: TargetWindow, findings: Finding[] = []): WindowView {
  return {
    ticksSince: (s) => w.ticksSince(s),
    ioSince: (s) => w.ioSince(s),
    queries: () => w.queries(),
    findings: { findings },
    blockSize: 8192,
  };
}
const finding = (since: number, text: string): Finding => ({
  id: "workers_queue",
  rule: "workers_queue",
  severity: "act",
  glance: { now: "", lever: null },
  text,
  evidence: { busy: 1 },
  since,
});

describe("SampleRecorder", () => {
  it("keeps one tick a second, the one with the most reads in flight, once the second is over", () => {
    const w = new TargetWindow(60_000);
    const r = new SampleRecorder();
    w.addActivity(10_000, [scan([handle(15)])], "read");
    w.addActivity(10_300, [scan([handle(31), handle(47), handle(63)])], "read");
    w.addActivity(10_600, [scan([handle(79)])], "read");
    expect(r.next(10_600, viewOf(w)).ticks).toEqual([]);
    w.addActivity(11_000, [], "read");
    const { ticks } = r.next(11_000, viewOf(w));
    expect(ticks).toHaveLength(1);
    expect(ticks[0]).toMatchObject({ t: 10_300, aio: { inFlight: 3 } });
    expect(ticks[0]).not.toHaveProperty("seq");
    // Nothing twice: the same window again gives no row.
    expect(r.next(11_500, viewOf(w)).ticks).toEqual([]);
  });

  it("writes a run once it ends, a running one every 10 s, and what is open at a stop", () => {
    const w = new TargetWindow(60_000);
    const r = new SampleRecorder();
    w.addActivity(2_000, [scan([handle(15)])], "read");
    expect(r.next(2_000, viewOf(w)).runs.map((x) => x.endedAt)).toEqual([null]);
    w.addActivity(3_000, [scan([handle(31)])], "read");
    expect(r.next(3_000, viewOf(w)).runs).toEqual([]);
    w.addActivity(2_000 + OPEN_REWRITE_MS, [scan([handle(47)])], "read");
    expect(r.next(2_000 + OPEN_REWRITE_MS, viewOf(w)).runs).toHaveLength(1);
    expect(r.finish(13_000, viewOf(w)).runs).toHaveLength(1);
    w.addActivity(14_000, [], "read");
    const ended = r.next(14_000, viewOf(w)).runs;
    expect(ended).toMatchObject([{ id: "10:1000", endedAt: 14_000, verdict: "async" }]);
    expect(r.next(16_000, viewOf(w)).runs).toEqual([]);
  });

  it("keeps a finding from when it first held to when it stopped, with its latest words", () => {
    const r = new SampleRecorder();
    const w = new TargetWindow(60_000);
    const opened = r.next(5_000, viewOf(w, [finding(4_000, "1 of 1 busy")])).findings;
    expect(opened).toEqual([expect.objectContaining({ rule: "workers_queue", from: 4_000, to: null, text: "1 of 1 busy" })]);
    // Its figures move: not rewritten every second.
    expect(r.next(6_000, viewOf(w, [finding(4_000, "1 of 1 busy, 3 waiting")])).findings).toEqual([]);
    const closed = r.next(9_000, viewOf(w)).findings;
    expect(closed).toEqual([expect.objectContaining({ from: 4_000, to: 9_000, text: "1 of 1 busy, 3 waiting" })]);
    expect(r.next(10_000, viewOf(w)).findings).toEqual([]);
  });

  it("keeps a finding that held for less than a second, between two looks at the runs", () => {
    const r = new SampleRecorder();
    const w = new TargetWindow(60_000);
    expect(r.next(5_000, viewOf(w)).findings).toEqual([]);
    expect(r.next(5_100, viewOf(w, [finding(5_100, "1 of 1 busy")])).findings).toEqual([
      expect.objectContaining({ from: 5_100, to: null }),
    ]);
    expect(r.next(5_400, viewOf(w)).findings).toEqual([expect.objectContaining({ from: 5_100, to: 5_400 })]);
    expect(r.next(6_000, viewOf(w)).findings).toEqual([]);
  });
});

describe("worstFinding", () => {
  const f = (severity: "act" | "note" | "info", from: number, to: number | null, seen = to ?? from) => ({
    id: `${severity}${from}`,
    rule: "workers_queue" as const,
    severity,
    text: "",
    evidence: {},
    from,
    to,
    seen,
  });
  it("is the most severe, then the longest held", () => {
    expect(worstFinding([])).toBeNull();
    expect(worstFinding([f("info", 0, 100_000), f("note", 0, 1000), f("note", 1, null, 5000)])?.id).toBe("note1");
    expect(worstFinding([f("note", 0, 1000), f("act", 10, 20)])?.id).toBe("act10");
  });
});
