// The sizing payload with the history off: sized from the live window's
// ticks and runs with the settings now, and a note saying so; literals
// redacted before any statement is quoted (INFLIGHT_REDACT).
import { describe, expect, it } from "vitest";
import { SizingResponse } from "../../schemas/sizing";
import type { SampledBackend } from "../../schemas/rows";
import { toSettings } from "../../model/window/settings";
import { TargetWindow } from "../../model/window/window";
import { HistoryStore } from "./store";
import { liveInput, sizingPayload } from "./sizing";
import { emptyLoad } from "../../model/history/second-load";
import { run } from "../../../test/support/fixtures";

const row = (name: string, setting: string) => ({
  name,
  setting,
  unit: null,
  source: "default",
  pending_restart: false,
  enumvals: null,
  vartype: "string",
});
const off = HistoryStore.off({ file: "", retentionMs: 3_600_000, maxBytes: 1, log: () => undefined }, "off");
const scan = (start: number): SampledBackend => ({
  pid: 10,
  leader_pid: null,
  backend_type: "client backend",
  state: "active",
  wait_event_type: "CPU",
  wait_event: null,
  query_id: null,
  query_start_ms: start,
  state_change_ms: start,
  datname: "db",
  usename: "u",
  query: "SELECT * FROM t WHERE name = 'secret'",
  handles: [],
});

describe("the sizing payload from the live window", () => {
  it("sizes what the window holds of the range, with the settings now, and says so", () => {
    const w = new TargetWindow(15 * 60_000);
    w.setServerState(
      0,
      toSettings([
        row("io_method", "worker"),
        row("io_workers", "3"),
        row("effective_io_concurrency", "16"),
        row("io_combine_limit", "16"),
        row("io_max_combine_limit", "16"),
      ]),
      0,
    );
    for (let t = 1000; t < 16_000; t += 100) w.addActivity(t, t < 3000 ? [scan(1000)] : [], "read");
    const q = { target: "t", from: 0, to: 16_000, redact: true };
    const r = SizingResponse.parse(sizingPayload(liveInput(w, off, q), q, "live", "The history is not kept."));
    expect(r).toMatchObject({ source: "live", note: "The history is not kept." });
    expect(r.sampledMs).toBe(15_000);
    expect(r.levers.find((l) => l.lever === "io_workers")).toMatchObject({ verdict: "leave", now: "3" });
  });

  it("INFLIGHT_REDACT: the statements a lever quotes have no literals", () => {
    const settings = toSettings([row("io_method", "worker"), row("io_workers", "3"), row("effective_io_concurrency", "1")]);
    const pinned = (i: number) =>
      run({
        id: `${i}`,
        query: "SELECT count(*) FROM t WHERE name = 'secret'",
        startedAt: i * 3000,
        endedAt: i * 3000 + 2000,
        samples: 20,
        aioWaitSamples: 15,
        aioSamples: 18,
        sumInFlight: 18,
      });
    const input = { from: 0, to: 60_000, seconds: [], runs: [pinned(1), pinned(2)], settings: [{ t: 0, settings }], labs: [] };
    const lever = (redact: boolean) =>
      sizingPayload(
        { ...input, seconds: Array.from({ length: 30 }, (_, i) => ({ t: i * 1000, load: { ...emptyLoad(), samples: 10 } })) },
        { target: "t", from: 0, to: 60_000, redact },
        "history",
        null,
      ).levers.find((l) => l.lever === "effective_io_concurrency")!;
    expect(lever(false).statements[0].query).toContain("'secret'");
    expect(lever(true).statements[0].query).toBe("SELECT count(*) FROM t WHERE name = ?");
  });
});
