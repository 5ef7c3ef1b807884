import "server-only";
import type Database from "better-sqlite3";
import type { StatementDelta } from "../../model/compare/deltas";
import type { ServerIdentity } from "../../model/compare/identity";
import { NO_MEASURES } from "../../model/compare/measured";
import type { SideSums } from "../../model/compare/compare";
import type { Restart, SettingChange, Settings } from "../../schemas/settings";
import { enforceCap, pruneBefore } from "./bounds";
import { measuresOf } from "./compare";
import { describeFailure } from "./failure";
import { openDatabase } from "./schema";
import { ServerStates } from "./server-state";
import { RESTARTS, SIDE_SUMS } from "./sql";
import { StatementMinutes } from "./statement-minutes";
import type { HistoryReader, HistoryStatus, SideQuery, StoredRestart } from "./reader";
import { latestAt, resolveHistory, type ServerRow } from "./servers";
import { NO_HISTORY, type HistorySink } from "./sink";

export interface HistoryOptions {
  /** the SQLite file, e.g. <project>/.inflight/history.db */
  file: string;
  /** what is older goes, ms (INFLIGHT_HISTORY) */
  retentionMs: number;
  /** the file's cap, bytes (INFLIGHT_HISTORY_MAX_MB) */
  maxBytes: number;
  log: (line: string) => void;
}

export type { HistoryStatus, SideQuery, StoredRestart } from "./reader";

const MINUTE = 60_000;
const PRUNE_EVERY_MS = 10 * MINUTE;
const FAR = 8.64e15;
/** The findings' measures: asked at each read of pg_stat_statements (10 s), so each read sees the one before (dropped at each restart). */
const MEASURES_TTL_MS = 5_000;

/**
 * The history on disk: per server (servers.ts), per queryid and per minute the
 * pg_stat_statements deltas and the statement texts (statement-minutes.ts),
 * the restarts with the settings they changed, and the settings in force
 * (server-state.ts). Synchronous SQLite (better-sqlite3): one small
 * transaction per read of the collector.
 *
 * Never throws at its callers: a file that cannot be opened, read or
 * written turns the history off with one log line, and the dashboard goes
 * on live without it (status says why).
 */
export class HistoryStore implements HistoryReader {
  private db: Database.Database | null = null;
  private state: HistoryStatus;
  private prunedAt = 0;
  private serverStates = new ServerStates();
  private statementMinutes = new StatementMinutes();
  /** per target (a collector's id): its server's history; `identified` once connected (before: the newest at its address, read-only) */
  private targets = new Map<string, { history: string; identified: boolean }>();
  /** answers kept a little while (the fleet page asks every 2 s), dropped at each restart */
  private memos = new Map<string, { until: number; value: unknown }>();

  private constructor(readonly options: HistoryOptions) {
    this.state = { on: true };
  }

  static open(options: HistoryOptions): HistoryStore {
    const store = new HistoryStore(options);
    try {
      store.db = openDatabase(options.file);
    } catch (err) {
      store.fail(err, "opening");
    }
    return store;
  }

  static off(options: HistoryOptions, reason: string): HistoryStore {
    const store = new HistoryStore(options);
    store.state = { on: false, reason };
    return store;
  }

  get status(): HistoryStatus {
    return this.state;
  }

  get retentionMs(): number {
    return this.options.retentionMs;
  }

  /**
   * The key the history keeps a target's rows under: the history of
   * the server the target is connected to (the one function the samples key
   * by), or its id before inflight has found that server.
   */
  keyFor(target: string): string {
    return this.historyOf(target) ?? `target:${target}`;
  }

  /** The sink of one target: its rows go to the history of the server it is connected to, never to its name's. */
  forTarget(target: string): HistorySink {
    if (!this.db) return NO_HISTORY;
    const identified = () => {
      const bound = this.targets.get(target);
      return bound?.identified ? bound.history : null;
    };
    return {
      address: (address) => this.expectAt(target, address),
      server: (who) => this.identify(target, who, Date.now()),
      statements: (t, epoch, deltas, textOf) => {
        const history = identified();
        if (history) this.recordStatements(history, t, epoch, deltas, textOf);
      },
      serverState: (t, settings, start, version) => {
        const history = identified();
        if (!history) return null;
        return this.recordServerState(history, t, settings, start, version) ?? this.restarts(history, start, start + 1)[0] ?? null;
      },
      measures: (now) => {
        const history = identified();
        return history ? this.memo(`measures:${history}`, now, MEASURES_TTL_MS, () => measuresOf(this, history, now)) : NO_MEASURES;
      },
    };
  }

  /** The history a target's page reads: its server's (null before inflight has connected to it or found one at its address). */
  historyOf(target: string): string | null {
    return this.targets.get(target)?.history ?? null;
  }

  /** A history's server: its address, and how it is told apart (identified_by: its system identifier, its address only, or a name of schema 1). */
  server(history: string): ServerRow | null {
    return this.guard(
      "reading",
      null,
      (db) => (db.prepare("SELECT * FROM servers WHERE id = ?").get(history) as ServerRow | undefined) ?? null,
    );
  }

  private expectAt(target: string, address: string): void {
    if (this.targets.get(target)?.identified) return;
    const row = this.guard("reading", undefined, (db) => latestAt(db, address));
    if (row) this.targets.set(target, { history: row.id, identified: false });
  }

  private identify(target: string, who: ServerIdentity, now: number): void {
    const row = this.guard("writing", null, (db) => resolveHistory(db, who, now));
    if (!row) return;
    const was = this.targets.get(target);
    this.targets.set(target, { history: row.id, identified: true });
    if (was?.history !== row.id) this.memos.clear();
    if (row.identified_by === "address" && !(was?.identified && was.history === row.id)) {
      this.options.log(
        `history: the server at ${who.address} is told apart by its address only (this role may not run pg_control_system())`,
      );
    }
  }

  // ---- writes --------------------------------------------------------------

  recordStatements(
    history: string,
    t: number,
    epoch: number,
    deltas: readonly StatementDelta[],
    textOf: (queryid: string) => string | undefined,
  ): void {
    if (deltas.length === 0) return;
    this.guard("writing", undefined, (db) => {
      this.statementMinutes.write(db, history, t, epoch, deltas, textOf);
      this.bound(db, t);
    });
  }

  /** The settings in force and, at a new server start, the restart (server-state.ts); dropping the memos at a restart. */
  recordServerState(
    history: string,
    t: number,
    settings: Settings,
    postmasterStart: number,
    version: string | null = null,
  ): Restart | null {
    return this.guard("writing", null, (db) =>
      this.serverStates.record(db, history, t, settings, postmasterStart, version, () => this.memos.clear()),
    );
  }

  /** A restart the lab made (its server start): not one to compare around. */
  noteLabRestart(history: string, epoch: number): void {
    this.guard("writing", undefined, (db) =>
      db.prepare("INSERT OR IGNORE INTO lab_restarts (history, epoch) VALUES (?, ?)").run(history, epoch),
    );
  }

  // ---- reads ---------------------------------------------------------------

  restarts(history: string, from = -FAR, to = FAR): StoredRestart[] {
    return this.guard("reading", [], (db) => {
      const rows = db.prepare(RESTARTS).all(history, from, to) as { at: number; seenAt: number; changes: string; lab: number }[];
      return rows.map((r) => ({ at: r.at, seenAt: r.seenAt, changes: JSON.parse(r.changes) as SettingChange[], lab: r.lab === 1 }));
    });
  }

  sideSums(history: string, q: SideQuery): Map<string, SideSums> {
    return this.guard("reading", new Map(), (db) => {
      const rows = db
        .prepare(SIDE_SUMS)
        .all({ history, from: q.from, to: q.to, epochFrom: q.epochFrom ?? -FAR, epochTo: q.epochTo ?? FAR }) as (SideSums & {
        queryid: string;
      })[];
      return new Map(rows.map(({ queryid, ...sums }) => [queryid, sums]));
    });
  }

  texts(history: string, ids: readonly string[]): Map<string, string> {
    return this.guard("reading", new Map(), (db) => {
      const get = db.prepare("SELECT query FROM statement_texts WHERE history = ? AND queryid = ?").pluck();
      return new Map(ids.map((id) => [id, (get.get(history, id) as string | undefined) ?? ""]));
    });
  }

  /** The settings in force at `t` (the newest recorded at or before it). */
  settingsAt(history: string, t: number): Settings | null {
    return this.guard("reading", null, (db) => {
      const json = db
        .prepare("SELECT settings FROM settings WHERE history = ? AND t <= ? ORDER BY t DESC LIMIT 1")
        .pluck()
        .get(history, t) as string | undefined;
      return json ? (JSON.parse(json) as Settings) : null;
    });
  }

  /** `compute()`'s answer, the same for `ttlMs` (or until the next restart). */
  memo<T>(key: string, now: number, ttlMs: number, compute: () => T): T {
    const hit = this.memos.get(key);
    if (hit && hit.until > now) return hit.value as T;
    const value = compute();
    if (this.memos.size > 1000) this.memos.clear();
    this.memos.set(key, { until: now + ttlMs, value });
    return value;
  }

  /** Retention and the size cap, now (they also run by themselves as the collector writes). */
  prune(now: number): void {
    this.guard("pruning", undefined, (db) => {
      this.prunedAt = 0;
      this.bound(db, now);
    });
  }

  close(): void {
    this.db?.close();
    this.db = null;
  }

  // ---- internals -------------------------------------------------------------

  private bound(db: Database.Database, now: number): void {
    if (now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = now;
      pruneBefore(db, now - this.options.retentionMs);
    }
    const cutoff = enforceCap(db, this.options.maxBytes, now);
    if (cutoff !== null)
      this.options.log(
        `history: ${this.options.file} reached its cap of ${Math.round(this.options.maxBytes / 1024 / 1024)} MB: minutes before ${new Date(cutoff).toISOString()} dropped`,
      );
  }

  /** `body` on the open file, or `fallback` when the history is off; what SQLite throws turns it off (one log line). */
  guard<T>(what: string, fallback: T, body: (db: Database.Database) => T): T {
    const db = this.db;
    if (!db) return fallback;
    try {
      return body(db);
    } catch (err) {
      this.fail(err, what);
      return fallback;
    }
  }

  /** One line, once: the history is off from here on, and status says why. */
  private fail(err: unknown, what: string): void {
    const reason = describeFailure(this.options.file, err, what);
    this.state = { on: false, reason };
    try {
      this.db?.close();
    } catch {
      // closing a broken file can fail too; it is off either way
    }
    this.db = null;
    this.options.log(`history off: ${reason}; inflight goes on live, without history`);
  }
}
