// Which history a server's rows go to, against real SQLite: by address and
// system identifier, never by the target's display name; an upgrade keeps
// its history; a file of schema 1 (keyed by name) is migrated, not lost.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ServerIdentity } from "../../model/compare/identity";
import type { Settings } from "../../schemas/settings";
import { comparePayload } from "./compare";
import { labHistory } from "./servers";
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

const who = (address: string, systemId: string | null, postmasterStart: number, serverVersion = "18.4"): ServerIdentity => ({
  address,
  systemId,
  serverVersion,
  serverVersionNum: Number(serverVersion.split(".")[0]) * 10_000 + Number(serverVersion.split(".")[1] ?? 0),
  postmasterStart,
});

describe("histories kept by server", () => {
  let dir: string;
  let lines: string[];
  const opts = (): HistoryOptions => ({
    file: path.join(dir, "history.db"),
    retentionMs: 7 * 24 * 60 * MIN,
    maxBytes: 64 * 1024 * 1024,
    log: (l) => lines.push(l),
  });
  const compare = (store: HistoryStore, target: string) =>
    comparePayload(store, {
      target,
      history: store.historyOf(target),
      beforeMs: 60 * MIN,
      afterMs: 60 * MIN,
      now: T0 + 120 * MIN,
      redact: false,
    });

  /** Connects `target` to the server `id`, then a restart of it into `method` at `at`. */
  function watch(store: HistoryStore, target: string, id: ServerIdentity, method: string, restartAt: number) {
    const sink = store.forTarget(target);
    sink.server(id);
    sink.serverState(id.postmasterStart + MIN, settings("worker"), id.postmasterStart, id.serverVersion);
    sink.server({ ...id, postmasterStart: restartAt });
    sink.serverState(restartAt + 1000, settings(method), restartAt, id.serverVersion);
    return sink;
  }

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-servers-"));
    lines = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("gives two servers on one host, watched one after the other under one name, two histories", () => {
    const first = HistoryStore.open(opts());
    watch(first, "localhost", who("127.0.0.1:55501/postgres", "111", T0), "sync", T0 + 10 * MIN);
    first.close();
    const second = HistoryStore.open(opts());
    watch(second, "localhost", who("127.0.0.1:55550/postgres", "222", T0 + 30 * MIN), "worker", T0 + 40 * MIN);
    expect(second.historyOf("localhost")).toBe("127.0.0.1:55550/postgres#222");
    const c = compare(second, "localhost");
    expect(c.history).toEqual({ id: "127.0.0.1:55550/postgres#222", identifiedBy: "system_identifier" });
    expect(c.restart?.at).toBe(T0 + 40 * MIN);
    expect(second.restarts("127.0.0.1:55501/postgres#111").map((r) => r.at)).toEqual([T0 + 10 * MIN]);
    expect(second.restarts("127.0.0.1:55550/postgres#222").map((r) => r.at)).toEqual([T0 + 40 * MIN]);
    second.close();
    expect(lines).toEqual([]);
  });

  it("keeps a renamed target's history, and knows it at its address before connecting", () => {
    const store = HistoryStore.open(opts());
    watch(store, "east", who("db1:5432/app", "7", T0), "sync", T0 + 10 * MIN);
    const renamed = store.forTarget("east-1");
    renamed.address("db1:5432/app");
    expect(store.historyOf("east-1")).toBe("db1:5432/app#7");
    renamed.server(who("db1:5432/app", "7", T0 + 10 * MIN));
    expect(compare(store, "east-1").restart?.at).toBe(T0 + 10 * MIN);
    store.close();
  });

  it("keeps an upgrade (same address, a new identifier, a newer major) as the same history, a restart with server_version among its changes", () => {
    const store = HistoryStore.open(opts());
    watch(store, "db", who("db1:5432/app", "7", T0), "worker", T0 + 10 * MIN);
    const sink = store.forTarget("db");
    sink.server(who("db1:5432/app", "8", T0 + 20 * MIN, "19.0"));
    sink.serverState(T0 + 20 * MIN + 1000, settings("worker"), T0 + 20 * MIN, "19.0");
    expect(store.historyOf("db")).toBe("db1:5432/app#7");
    expect(store.restarts("db1:5432/app#7").at(-1)).toMatchObject({
      at: T0 + 20 * MIN,
      changes: [{ name: "server_version", before: "18.4", after: "19.0" }],
    });
    expect(store.server("db1:5432/app#7")).toMatchObject({ system_id: "8", server_version: "19.0" });
    store.close();
  });

  it("names server_version once when the settings read carry it too (pg_settings has it)", () => {
    const store = HistoryStore.open(opts());
    const withVersion = (version: string): Settings => ({
      ...settings("worker"),
      server_version: { setting: version, unit: null, source: "default", pendingRestart: false, display: version, enumvals: null },
    });
    const sink = store.forTarget("db");
    sink.server(who("db1:5432/app", "7", T0));
    sink.serverState(T0 + MIN, withVersion("18.4"), T0, "18.4");
    sink.server(who("db1:5432/app", "8", T0 + 20 * MIN, "19.0"));
    sink.serverState(T0 + 20 * MIN + 1000, withVersion("19.0"), T0 + 20 * MIN, "19.0");
    expect(store.restarts("db1:5432/app#7").at(-1)?.changes).toEqual([{ name: "server_version", before: "18.4", after: "19.0" }]);
    store.close();
  });

  it("gives a cluster rebuilt at the same address (a new identifier, the same major) a new history", () => {
    const store = HistoryStore.open(opts());
    watch(store, "db", who("db1:5432/app", "7", T0), "sync", T0 + 10 * MIN);
    store.forTarget("db").server(who("db1:5432/app", "9", T0 + 20 * MIN));
    expect(store.historyOf("db")).toBe("db1:5432/app#9");
    expect(compare(store, "db").restart).toBeNull();
    store.close();
  });

  it("goes by the address alone where the role may not read pg_control_system(), and says so", () => {
    const store = HistoryStore.open(opts());
    watch(store, "db", who("db1:5432/app", null, T0), "sync", T0 + 10 * MIN);
    expect(store.historyOf("db")).toBe("db1:5432/app");
    expect(compare(store, "db").history).toEqual({ id: "db1:5432/app", identifiedBy: "address" });
    expect(lines).toEqual([
      "history: the server at db1:5432/app is told apart by its address only (this role may not run pg_control_system())",
    ]);
    store.close();
  });

  it("migrates a file of schema 1: a name's rows go to the server still running since their last start, else stay readable", () => {
    const file = opts().file;
    const old = new Database(file);
    old.exec(`
      CREATE TABLE statement_minutes (target TEXT NOT NULL, minute INTEGER NOT NULL, epoch REAL NOT NULL, queryid TEXT NOT NULL, calls REAL NOT NULL, exec_ms REAL NOT NULL, exec_sq REAL NOT NULL, read_ms REAL, blks_read REAL NOT NULL, blks_hit REAL NOT NULL, PRIMARY KEY (target, minute, epoch, queryid)) WITHOUT ROWID;
      CREATE TABLE statement_texts (target TEXT NOT NULL, queryid TEXT NOT NULL, query TEXT NOT NULL, last_minute INTEGER NOT NULL, PRIMARY KEY (target, queryid)) WITHOUT ROWID;
      CREATE TABLE restarts (target TEXT NOT NULL, at REAL NOT NULL, seen_at INTEGER NOT NULL, changes TEXT NOT NULL, PRIMARY KEY (target, at)) WITHOUT ROWID;
      CREATE TABLE lab_restarts (target TEXT NOT NULL, epoch REAL NOT NULL, PRIMARY KEY (target, epoch)) WITHOUT ROWID;
      CREATE TABLE settings (target TEXT NOT NULL, t INTEGER NOT NULL, epoch REAL NOT NULL, settings TEXT NOT NULL, PRIMARY KEY (target, t)) WITHOUT ROWID;
      PRAGMA user_version = 1;`);
    const put = (target: string, epoch: number, restart: number) => {
      old.prepare("INSERT INTO settings VALUES (?, ?, ?, ?)").run(target, epoch + 1000, epoch, JSON.stringify(settings("sync")));
      old
        .prepare("INSERT INTO restarts VALUES (?, ?, ?, ?)")
        .run(target, restart, restart + 1000, JSON.stringify([{ name: "io_method", before: "worker", after: "sync" }]));
      old
        .prepare("INSERT INTO statement_minutes VALUES (?, ?, ?, 'q', 6, 600, 60000, 1, 1, 1)")
        .run(target, Math.floor(restart / MIN) * MIN + MIN, restart);
      old
        .prepare("INSERT INTO statement_minutes VALUES (?, ?, ?, 'q', 6, 900, 140000, 1, 1, 1)")
        .run(target, Math.floor(restart / MIN) * MIN - MIN, restart - 30 * MIN);
      old.prepare("INSERT INTO statement_texts VALUES (?, 'q', 'SELECT q', ?)").run(target, Math.floor(restart / MIN) * MIN + MIN);
    };
    put("east", T0 + 10 * MIN, T0 + 10 * MIN);
    put("west", T0 + 20 * MIN, T0 + 20 * MIN);
    old.close();

    const store = HistoryStore.open(opts());
    expect(store.status).toEqual({ on: true });
    // east's server is still the one started at its last recorded start: it takes its rows over.
    store.forTarget("east").server(who("db1:5432/app", "7", T0 + 10 * MIN));
    expect(store.historyOf("east")).toBe("name:east");
    expect(store.server("name:east")).toMatchObject({ address: "db1:5432/app", system_id: "7", legacy_name: "east" });
    expect(compare(store, "east").restart?.at).toBe(T0 + 10 * MIN);
    // west's has restarted since: a history of its own, the old one kept and readable by its id.
    store.forTarget("west").server(who("db2:5432/app", "8", T0 + 50 * MIN));
    const west = compare(store, "west");
    expect(west.restart).toBeNull();
    expect(west.note).toMatch(/\?history=name%3Awest/);
    const kept = comparePayload(store, {
      target: "west",
      history: "name:west",
      beforeMs: 60 * MIN,
      afterMs: 60 * MIN,
      now: T0 + 120 * MIN,
      redact: false,
    });
    expect(kept).toMatchObject({
      history: { id: "name:west", identifiedBy: "name" },
      restart: { at: T0 + 20 * MIN },
      rows: [{ query: "SELECT q", before: { calls: 6 }, after: { calls: 6 } }],
    });
    store.close();
  });

  it("a lab's result goes to the history the dashboard keeps for the server (its identifier, at its port), whatever database the lab connected to", () => {
    const store = HistoryStore.open(opts());
    store.forTarget("app").server(who("db.example:5432/app", "42", T0));
    store.forTarget("replica").server(who("db2.example:5432/app", "43", T0));
    const lab = (id: ServerIdentity) => store.guard("writing", null, (db) => labHistory(db, id, T0 + MIN))?.id;
    expect(lab(who("localhost:5432/postgres", "42", T0))).toBe("db.example:5432/app#42");
    // A server the dashboard never watched: a history of its own, at the lab's address.
    expect(lab(who("localhost:5433/postgres", "44", T0))).toBe("localhost:5433/postgres#44");
    // Not told apart by an identifier: by the lab's address, as the collector would.
    expect(lab(who("localhost:5432/postgres", null, T0))).toBe("localhost:5432/postgres");
    store.close();
  });
});
