// The history's file against real SQLite in a temp folder, written
// by the store's worker_thread: rows written in one flush come back by
// range, across a reopen; retention bounds them; a file that refuses writes
// drops rows with a count and says why; a locked file holds the writer,
// never the caller, and what waits for it is bounded.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SampleRows } from "../../model/history/samples";
import type { HistoryTick } from "../../schemas/history";
import { MAX_QUEUED, SampleStore, type SampleOptions } from "./samples";
import { samplesFile } from "./samples-db.mjs";

const T0 = Date.UTC(2026, 0, 10, 3, 0, 0);
const DAY = 86_400_000;

const tick = (t: number, inFlight: number): HistoryTick => ({
  t,
  aio: {
    inFlight,
    bytes: inFlight * 131072,
    byState: { SUBMITTED: inFlight },
    byOperation: { readv: inFlight },
    byStateOperation: { "SUBMITTED/readv": inFlight },
    sync: 0,
    syncBytes: 0,
  },
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
  findings: [
    {
      id: "workers_queue",
      rule: "workers_queue",
      severity: "act",
      text: "io workers are the queue",
      evidence: {},
      from,
      to: from + n * 1000,
      seen: from + n * 1000,
    },
  ],
});

describe("the sample store", () => {
  let dir: string;
  let lines: string[];
  const opts = (extra: Partial<SampleOptions> = {}): SampleOptions => ({
    file: samplesFile(path.join(dir, "history.db")),
    retentionMs: 7 * DAY,
    maxBytes: 64 * 1024 * 1024,
    log: (l) => lines.push(l),
    ...extra,
  });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-samples-"));
    lines = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the queue in one flush and reads a range back, after a reopen too", async () => {
    expect(samplesFile("/x/.inflight/history.db")).toBe("/x/.inflight/history-samples.db");
    const store = SampleStore.open(opts());
    store.forTarget("east", () => "east").write(rows(T0, 10));
    expect(store.read("east", T0, T0 + DAY).ticks).toEqual([]);
    await store.flush(T0 + 10_000);
    await store.close();
    const again = SampleStore.open(opts());
    const got = again.read("east", T0 + 2000, T0 + 5000);
    expect(got.ticks.map((t) => t.t)).toEqual([T0 + 2000, T0 + 3000, T0 + 4000]);
    expect(got.findings).toEqual([expect.objectContaining({ rule: "workers_queue", from: T0, to: T0 + 10_000 })]);
    expect(got.keptFrom).toBe(T0);
    expect(again.read("west", T0, T0 + DAY).ticks).toEqual([]);
    expect(again.status("east")).toEqual({ on: true, reason: null, dropped: 0 });
    await again.close();
  });

  it('reads a finding kept as "warn" by an earlier inflight as the "note" the page shows', async () => {
    const store = SampleStore.open(opts());
    await store.flush(T0);
    await store.close();
    const file = samplesFile(path.join(dir, "history.db"));
    const db = new Database(file);
    const kept = { ...rows(T0, 1).findings[0], id: "small_reads", rule: "small_reads", severity: "warn" };
    db.prepare("INSERT INTO sample_findings (target, id, since, seen, data) VALUES (?, ?, ?, ?, ?)").run(
      "east",
      kept.id,
      T0,
      T0 + 1000,
      JSON.stringify(kept),
    );
    db.close();
    const again = SampleStore.open(opts());
    expect(again.read("east", T0, T0 + DAY).findings.map((f) => [f.rule, f.severity])).toEqual([["small_reads", "note"]]);
    await again.close();
  });

  it("lets go of what is older than the retention", async () => {
    const store = SampleStore.open(opts({ retentionMs: DAY }));
    const sink = store.forTarget("east", () => "east");
    sink.write(rows(T0, 5));
    await store.flush(T0);
    sink.write(rows(T0 + 2 * DAY, 5));
    await store.flush(T0 + 2 * DAY + 10_000);
    expect(store.read("east", 0, T0 + 3 * DAY).ticks.map((t) => t.t)[0]).toBe(T0 + 2 * DAY);
    await store.close();
  });

  it("drops rows with a count and says why when the file cannot be written, and goes on", async () => {
    // A directory where the file should be.
    mkdirSync(opts().file, { recursive: true });
    const store = SampleStore.open(opts());
    const sink = store.forTarget("east", () => "east");
    expect(sink.status()).toMatchObject({ on: false, reason: expect.stringContaining("history-samples.db") });
    sink.write(rows(T0, 10));
    await store.flush(T0 + 1000);
    expect(sink.status().dropped).toBe(11);
    expect(lines.filter((l) => l.startsWith("samples not kept"))).toHaveLength(1);
    await store.close();
  });

  it("says why, drops and counts what the writer could not write, and writes again once the file can be", async () => {
    const store = SampleStore.open(opts());
    const sink = store.forTarget("east", () => "east");
    // The file changes under the store: a newer inflight's schema, which the writer will not touch.
    const other = new Database(opts().file);
    other.pragma("user_version = 99");
    sink.write(rows(T0, 10));
    await store.flush(T0 + 1000);
    expect(sink.status()).toEqual({
      on: false,
      reason: expect.stringContaining("was written by a newer inflight (samples schema 99"),
      dropped: 11,
    });
    other.pragma("user_version = 1");
    other.close();
    sink.write(rows(T0 + 20_000, 10));
    await store.flush(T0 + 2000);
    expect(sink.status().dropped).toBe(22);
    // Tried again 30 s after it failed.
    sink.write(rows(T0 + 40_000, 10));
    await store.flush(T0 + 31_000);
    expect(sink.status()).toEqual({ on: true, reason: null, dropped: 22 });
    expect(store.read("east", T0, T0 + DAY).ticks.map((t) => t.t)[0]).toBe(T0 + 40_000);
    expect(lines.filter((l) => l.startsWith("samples not kept"))).toHaveLength(1);
    expect(lines).toContain(`samples: ${opts().file} is written again`);
    await store.close();
  });

  it("while another connection holds the file locked, the caller goes on, what waits is bounded, and what was handed over is written once the lock goes", async () => {
    const store = SampleStore.open(opts());
    const sink = store.forTarget("east", () => "east");
    const lock = new Database(opts().file);
    lock.exec("BEGIN EXCLUSIVE");
    try {
      const held = 15_000;
      sink.write(rows(T0, held));
      let written = false;
      const first = store.flush(T0 + held * 1000).then(() => (written = true));
      // Beyond the bound with what the writer holds: dropped and counted, at once.
      const over = MAX_QUEUED - held;
      sink.write(rows(T0 + held * 1000, over));
      expect(sink.status()).toEqual({ on: true, reason: null, dropped: over + 1 });
      // Reads do not wait for the lock either (WAL), and nothing is written while it is held.
      expect(store.read("east", T0, T0 + DAY).ticks).toEqual([]);
      expect(sink.status().on).toBe(true);
      await new Promise((r) => setImmediate(r));
      expect(written).toBe(false);
      lock.exec("COMMIT");
      await first;
    } finally {
      lock.close();
    }
    expect(store.read("east", T0, T0 + DAY).ticks).toHaveLength(15_000);
    expect(sink.status()).toEqual({ on: true, reason: null, dropped: MAX_QUEUED - 15_000 + 1 });
    expect(lines).toEqual([]);
    await store.close();
  });
});
