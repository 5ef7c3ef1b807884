import { describe, expect, it } from "vitest";
import { run, target, tick } from "../../test/support/fixtures";
import type { HistoryFinding, HistoryResponse } from "@/lib/schemas/history";
import { mergeFrames, mergeRuns, needsHistory, historyFindingLines, historyFrame, withHistory } from "./history";
import { banners } from "./settings";
import type { FrozenView } from "./view";

const H = 3_600_000;
const T0 = new Date(2026, 0, 10, 3, 0, 0).getTime();

const finding = (over: Partial<HistoryFinding>): HistoryFinding => ({
  id: "workers_queue",
  rule: "workers_queue",
  severity: "act",
  text: "io workers are the queue",
  evidence: {},
  from: T0 + 72_000,
  to: T0 + 280_000,
  seen: T0 + 280_000,
  ...over,
});
function response(over: Partial<HistoryResponse> = {}): HistoryResponse {
  const { seq: _a, ...a } = tick(0, T0 + 1000, { aio: { inFlight: 4 } });
  const { seq: _b, ...b } = tick(0, T0 + 2000);
  return {
    target: "demo",
    from: T0,
    to: T0 + H,
    keptFrom: T0,
    retentionMs: 7 * 24 * H,
    ticks: [
      { ...a, read: { intervalMs: 1000, reads: 10, readBytes: 1_310_720, readTime: 0, hits: 0 }, rate: { bytesPerSec: 4e8, scans: 1 } },
      { ...b, read: null, rate: null },
    ],
    runs: [run({ id: "1:1", startedAt: T0 + 500, endedAt: T0 + 1800 })],
    findings: [finding({})],
    restarts: [{ at: T0 + 1500, seenAt: T0 + 1600, changes: [] }],
    status: { on: true, reason: null, dropped: 0 },
    note: null,
    ...over,
  };
}

describe("the past from disk", () => {
  it("turns the disk's seconds into frame rows: ticks, pg_stat_io deltas where there were some, the live rate", () => {
    const frame = historyFrame(response());
    expect(frame.ticks.map((t) => [t.seq, t.t, t.aio?.inFlight])).toEqual([
      [1, T0 + 1000, 4],
      [2, T0 + 2000, 0],
    ]);
    expect(frame.io).toEqual([
      { seq: 1, t: T0 + 1000, intervalMs: 1000, rows: [], totals: { reads: 10, readBytes: 1_310_720, readTime: 0, hits: 0 } },
    ]);
    expect(frame.rates).toEqual([{ t: T0 + 1000, bytesPerSec: 4e8, scans: 1 }]);
  });

  it("reads from disk only a range that starts before the window", () => {
    const live = { ticks: [tick(1, T0 + H)], io: [], rates: [] };
    expect(needsHistory(live, { from: T0 + H - 500, to: T0 + H })).toBe(false);
    expect(needsHistory(live, { from: T0, to: T0 + H })).toBe(true);
    expect(needsHistory({ ticks: [], io: [], rates: [] }, { from: T0, to: T0 + 1 })).toBe(true);
  });

  it("keeps the window's finer rows where it has them, the disk's before", () => {
    const merged = mergeFrames(historyFrame(response()), { ticks: [tick(7, T0 + 1500)], io: [], rates: [] });
    expect(merged.ticks.map((t) => t.t)).toEqual([T0 + 1000, T0 + 1500]);
    expect(merged.io).toHaveLength(1);
  });

  it("lists the runs of both once, running first, the window's copy winning", () => {
    const runs = mergeRuns(
      [run({ id: "a", startedAt: 1, endedAt: 5, verdict: "sync" }), run({ id: "b", startedAt: 2, endedAt: 3 })],
      [run({ id: "a", startedAt: 1, endedAt: 9, verdict: "async" }), run({ id: "c", startedAt: 0, endedAt: null })],
    );
    expect(runs.map((r) => [r.id, r.verdict])).toEqual([
      ["c", expect.any(String)],
      ["b", expect.any(String)],
      ["a", "async"],
    ]);
  });

  it("says each finding over the span it held, most severe first; one inflight stopped under is last seen", () => {
    const lines = historyFindingLines(
      [
        finding({ severity: "info", id: "cached", rule: "cached", from: T0 + 10_000, to: null, seen: T0 + 20_000 }),
        finding({}),
        finding({ id: "old", from: T0 - 2 * H, to: T0 - H, seen: T0 - H }),
      ],
      { from: T0, to: T0 + H },
    );
    expect(lines.map((l) => l.span)).toEqual(["03:01:12 - 03:04:40", "03:00:10 - 03:00:20 (still on when last seen)"]);
  });

  it("adds the disk's range to a frozen view: seconds, runs, restarts and findings", () => {
    // What freezing an empty live store gives (lib/client/freeze.ts).
    const empty: FrozenView = {
      from: T0,
      to: T0 + H,
      frame: { ticks: [], io: [], rates: [] },
      cadenceMs: null,
      queries: { asOf: 0, queries: [], statements: [], statementsNote: null },
      restarts: [],
      outages: [],
      frozenAt: T0 + H,
      ticksAtFreeze: 0,
      zoomed: false,
      unzoomTo: null,
    };
    const view = withHistory(empty, response());
    expect(view.frame.ticks).toHaveLength(2);
    expect(view.queries.queries.map((r) => r.id)).toEqual(["1:1"]);
    expect(view.restarts.map((r) => r.at)).toEqual([T0 + 1500]);
    expect(view.history).toEqual({ findings: [finding({})], note: null, seconds: 2 });
  });

  it("says when the past is not kept, and why", () => {
    expect(banners(target(), {}).map((b) => b.id)).toEqual([]);
    const off = banners(target({ history: { on: false, reason: "/x/history-samples.db cannot be written (EISDIR)", dropped: 12 } }), {});
    expect(off).toEqual([
      expect.objectContaining({
        id: "history-off",
        text: expect.stringMatching(
          /^\/x\/history-samples\.db cannot be written \(EISDIR\)\. The live page goes on.* 12 rows dropped so far\.$/,
        ),
      }),
    ]);
  });
});
