// The sampled picture's file against real SQLite in a temp folder: rows
// written in one flush come back by range, across a reopen; retention
// bounds them; a file that refuses writes drops rows with a count and says why.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SampleRows } from "../../history/samples";
import type { PastTick } from "../../schemas/past";
import { SampleStore, type SampleOptions } from "./samples";
import { samplesFile } from "./samples-db";

const T0 = Date.UTC(2026, 0, 10, 3, 0, 0);
const DAY = 86_400_000;

const tick = (t: number, inFlight: number): PastTick => ({
  t,
  aio: { inFlight, bytes: inFlight * 131072, byState: { SUBMITTED: inFlight }, byOperation: { readv: inFlight }, byStateOperation: { "SUBMITTED/readv": inFlight }, sync: 0, syncBytes: 0 },
  workers: { configured: 1, alive: 1, busy: 1 },
  waits: { "IO:AioIoCompletion": 1 },
  active: 1,
  runs: [],
  read: null,
  rate: { bytesPerSec: 4e8, scans: 1 },
});
const rows = (from: number, n: number): SampleRows => ({
  ticks: Array.from({ length: n }, (_, i) => tick(from + i * 1000, 3)),
  runs: [],
  findings: [{ id: "workers_queue", rule: "workers_queue", severity: "act", text: "io workers are the queue", evidence: {}, from, to: from + n * 1000, seen: from + n * 1000 }],
});

describe("the sample store", () => {
  let dir: string;
  let lines: string[];
  const opts = (extra: Partial<SampleOptions> = {}): SampleOptions => ({ file: samplesFile(path.join(dir, "history.db")), retentionMs: 7 * DAY, maxBytes: 64 * 1024 * 1024, log: (l) => lines.push(l), ...extra });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-samples-"));
    lines = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the queue in one flush and reads a range back, after a reopen too", () => {
    expect(samplesFile("/x/.inflight/history.db")).toBe("/x/.inflight/history-samples.db");
    const store = SampleStore.open(opts());
    store.forTarget("east", () => "east").write(rows(T0, 10));
    expect(store.read("east", T0, T0 + DAY).ticks).toEqual([]);
    store.flush(T0 + 10_000);
    store.close();
    const again = SampleStore.open(opts());
    const got = again.read("east", T0 + 2000, T0 + 5000);
    expect(got.ticks.map((t) => t.t)).toEqual([T0 + 2000, T0 + 3000, T0 + 4000]);
    expect(got.findings).toEqual([expect.objectContaining({ rule: "workers_queue", from: T0, to: T0 + 10_000 })]);
    expect(got.keptFrom).toBe(T0);
    expect(again.read("west", T0, T0 + DAY).ticks).toEqual([]);
    expect(again.status("east")).toEqual({ on: true, reason: null, dropped: 0 });
    again.close();
  });

  it("lets go of what is older than the retention", () => {
    const store = SampleStore.open(opts({ retentionMs: DAY }));
    const sink = store.forTarget("east", () => "east");
    sink.write(rows(T0, 5));
    store.flush(T0);
    sink.write(rows(T0 + 2 * DAY, 5));
    store.flush(T0 + 2 * DAY + 10_000);
    expect(store.read("east", 0, T0 + 3 * DAY).ticks.map((t) => t.t)[0]).toBe(T0 + 2 * DAY);
    store.close();
  });

  it("drops rows with a count and says why when the file cannot be written, and goes on", () => {
    // A directory where the file should be.
    mkdirSync(opts().file, { recursive: true });
    const store = SampleStore.open(opts());
    const sink = store.forTarget("east", () => "east");
    expect(sink.status()).toMatchObject({ on: false, reason: expect.stringContaining("history-samples.db") });
    sink.write(rows(T0, 10));
    store.flush(T0 + 1000);
    expect(sink.status().dropped).toBe(11);
    expect(lines.filter((l) => l.startsWith("samples not kept"))).toHaveLength(1);
    store.close();
  });
});
