// The history file against real SQLite (better-sqlite3) in a temp folder:
// what is written comes back, across a reopen; retention and the size cap
// bound it; a file it cannot use is one line and the history is off.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StatementDelta } from "../../model/compare/deltas";
import type { Settings } from "../../schemas/settings";
import { comparePayload } from "./compare";
import { usedBytes } from "./sqlite.mjs";
import { HistoryStore, type HistoryOptions } from "./store";

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);

function settings(ioMethod: string): Settings {
  const s = (setting: string) => ({
    setting,
    unit: null,
    source: "configuration file",
    pendingRestart: false,
    display: setting,
    enumvals: null,
  });
  return { io_method: s(ioMethod), io_workers: s("3") };
}

const delta = (queryid: string, calls: number, meanMs: number): StatementDelta => ({
  queryid,
  calls,
  execMs: calls * meanMs,
  execSq: calls * meanMs * meanMs * 1.01,
  readMs: calls * meanMs * 0.4,
  blksRead: calls * 100,
  blksHit: calls,
});

describe("the history store", () => {
  let dir: string;
  let lines: string[];
  const opts = (extra: Partial<HistoryOptions> = {}): HistoryOptions => ({
    file: path.join(dir, "history.db"),
    retentionMs: 7 * 24 * 60 * MIN,
    maxBytes: 64 * 1024 * 1024,
    log: (l) => lines.push(l),
    ...extra,
  });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-history-"));
    lines = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps minutes, restarts and settings, and a second store on the same file sees them and the restart it missed", () => {
    const first = HistoryStore.open(opts());
    expect(first.status).toEqual({ on: true });
    const sink = first.forTarget("east");
    sink.server({
      address: "db1:5432/app",
      systemId: "7001",
      serverVersion: "18.4",
      serverVersionNum: 180004,
      postmasterStart: T0 - 3_600_000,
    });
    sink.serverState(T0, settings("worker"), T0 - 3_600_000, "18.4");
    const east = first.historyOf("east")!;
    expect(east).toBe("db1:5432/app#7001");
    for (let m = 0; m < 10; m++) sink.statements(T0 + m * MIN + 5000, T0 - 3_600_000, [delta("q1", 6, 100)], () => "SELECT 1");
    first.close();

    const second = HistoryStore.open(opts());
    // The server restarted with io_method = sync while no inflight ran.
    expect(second.recordServerState(east, T0 + 20 * MIN, settings("sync"), T0 + 15 * MIN)).toMatchObject({
      at: T0 + 15 * MIN,
      changes: [{ name: "io_method", before: "worker", after: "sync" }],
    });
    for (let m = 21; m < 31; m++) second.recordStatements(east, T0 + m * MIN, T0 + 15 * MIN, [delta("q1", 6, 150)], () => "SELECT 1");
    const c = comparePayload(second, {
      target: "east",
      history: east,
      beforeMs: 60 * MIN,
      afterMs: 60 * MIN,
      now: T0 + 31 * MIN,
      redact: false,
    });
    expect(c.changes).toEqual([{ name: "io_method", before: "worker", after: "sync" }]);
    expect(c.rows).toHaveLength(1);
    expect(c.rows[0]).toMatchObject({ query: "SELECT 1", before: { calls: 60 }, after: { calls: 60 }, verdict: { kind: "slower" } });
    expect(c.rows[0].before.meanMs).toBeCloseTo(100);
    expect(c.rows[0].after.meanMs).toBeCloseTo(150);
    expect(second.settingsAt(east, T0 + 10 * MIN)?.io_method.setting).toBe("worker");
    expect(lines).toEqual([]);
    second.close();
  });

  it("drops what is older than its retention, but keeps the settings in force", () => {
    const store = HistoryStore.open(opts({ retentionMs: 60 * MIN }));
    store.recordServerState("east", T0, settings("worker"), T0 - MIN);
    store.recordStatements("east", T0, T0 - MIN, [delta("old", 6, 1)], () => "SELECT old");
    store.recordServerState("east", T0 + 30 * MIN, settings("sync"), T0 + 29 * MIN);
    store.recordStatements("east", T0 + 90 * MIN, T0 + 29 * MIN, [delta("new", 6, 1)], () => "SELECT new");
    store.prune(T0 + 100 * MIN);
    expect([...store.sideSums("east", { from: 0, to: T0 + 200 * MIN }).keys()]).toEqual(["new"]);
    expect(store.texts("east", ["old", "new"])).toEqual(
      new Map([
        ["old", ""],
        ["new", "SELECT new"],
      ]),
    );
    expect(store.restarts("east")).toEqual([]);
    expect(store.settingsAt("east", T0 + 100 * MIN)?.io_method.setting).toBe("sync");
    store.close();
  });

  it("stays under its size cap, dropping the oldest minutes first", () => {
    const maxBytes = 1024 * 1024;
    const store = HistoryStore.open(opts({ maxBytes }));
    const ids = Array.from({ length: 200 }, (_, i) => `q${i}`);
    for (let m = 0; m < 120; m++)
      store.recordStatements(
        "east",
        T0 + m * MIN,
        T0,
        ids.map((id) => delta(id, 1, 1)),
        (id) => `SELECT ${id}`,
      );
    store.close();
    const db = new Database(opts().file, { readonly: true });
    try {
      expect(usedBytes(db)).toBeLessThanOrEqual(maxBytes);
      const [oldest, newest] = db.prepare("SELECT min(minute), max(minute) FROM statement_minutes").raw().get() as number[];
      expect(newest).toBe(T0 + 119 * MIN);
      expect(oldest).toBeGreaterThan(T0);
    } finally {
      db.close();
    }
    expect(lines.some((l) => /reached its cap of 1 MB/.test(l))).toBe(true);
  });

  it("turns itself off with one line for a file that is not a database", () => {
    writeFileSync(opts().file, "not a database ".repeat(400));
    const store = HistoryStore.open(opts());
    expect(store.status).toMatchObject({
      on: false,
      reason: expect.stringMatching(/is not a history inflight can read \(file is not a database\)/),
    });
    store.forTarget("east").statements(T0, T0, [delta("q", 1, 1)], () => "x");
    expect(store.restarts("east")).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^history off: .*history\.db is not a history .*; inflight goes on live, without history$/);
  });

  it("turns itself off with one line when the file cannot be made", () => {
    writeFileSync(path.join(dir, "a-file"), "");
    const store = HistoryStore.open(opts({ file: path.join(dir, "a-file", "history.db") }));
    expect(store.status).toMatchObject({ on: false, reason: expect.stringMatching(/cannot be written/) });
    expect(lines).toHaveLength(1);
  });

  it("turns itself off with one line when a write fails later, and stays off", () => {
    const store = HistoryStore.open(opts());
    store.recordStatements("east", T0, T0, [delta("q", 1, 1)], () => "x");
    const other = new Database(opts().file);
    other.exec("DROP TABLE statement_minutes");
    other.close();
    for (let i = 1; i < 4; i++) store.recordStatements("east", T0 + i * MIN, T0, [delta("q", 1, 1)], () => "x");
    expect(store.status).toMatchObject({ on: false, reason: expect.stringMatching(/no such table: statement_minutes/) });
    expect(lines).toHaveLength(1);
  });
});
