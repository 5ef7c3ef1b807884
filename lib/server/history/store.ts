import "server-only";
import type Database from "better-sqlite3";
import type { StatementDelta } from "../../history/deltas";
import type { SideSums } from "../../history/compare";
import type { Restart, SettingChange, Settings } from "../../schemas/settings";
import { diffSettings } from "../../window/settings";
import { enforceCap, pruneBefore } from "./bounds";
import { NewerSchemaError, openDatabase } from "./schema";
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

export type HistoryStatus = { on: true } | { on: false; reason: string };

/** A restart as the history keeps it; `lab`: one of the lab's own. */
export type StoredRestart = Restart & { lab: boolean };

export interface SideQuery {
  from: number;
  to: number;
  /** only minutes of servers started in [epochFrom, epochTo) */
  epochFrom?: number;
  epochTo?: number;
}

const MINUTE = 60_000;
const PRUNE_EVERY_MS = 10 * MINUTE;
const FAR = 8.64e15;

const UPSERT_MINUTE = `
INSERT INTO statement_minutes (target, minute, epoch, queryid, calls, exec_ms, exec_sq, read_ms, blks_read, blks_hit)
VALUES (@target, @minute, @epoch, @queryid, @calls, @execMs, @execSq, @readMs, @blksRead, @blksHit)
ON CONFLICT (target, minute, epoch, queryid) DO UPDATE SET
  calls = calls + excluded.calls, exec_ms = exec_ms + excluded.exec_ms, exec_sq = exec_sq + excluded.exec_sq,
  read_ms = CASE WHEN read_ms IS NULL OR excluded.read_ms IS NULL THEN NULL ELSE read_ms + excluded.read_ms END,
  blks_read = blks_read + excluded.blks_read, blks_hit = blks_hit + excluded.blks_hit`;
const UPSERT_TEXT = `
INSERT INTO statement_texts (target, queryid, query, last_minute) VALUES (?, ?, ?, ?)
ON CONFLICT (target, queryid) DO UPDATE SET last_minute = excluded.last_minute`;
const SIDE_SUMS = `
SELECT queryid, sum(calls) AS calls, sum(exec_ms) AS execMs, sum(exec_sq) AS execSq,
       CASE WHEN count(read_ms) = count(*) THEN sum(read_ms) END AS readMs,
       sum(blks_read) AS blksRead, sum(blks_hit) AS blksHit
FROM statement_minutes
WHERE target = @target AND minute >= @from AND minute < @to AND epoch >= @epochFrom AND epoch < @epochTo
GROUP BY queryid`;
const RESTARTS = `
SELECT r.at, r.seen_at AS seenAt, r.changes, EXISTS (SELECT 1 FROM lab_restarts l WHERE l.target = r.target AND l.epoch = r.at) AS lab
FROM restarts r WHERE r.target = ? AND r.at >= ? AND r.at < ? ORDER BY r.at`;

/**
 * The history on disk: per target, per queryid and per minute the
 * pg_stat_statements deltas, the statement texts, the restarts with the
 * settings they changed, and the settings in force. Synchronous SQLite
 * (better-sqlite3): one small transaction per read of the collector.
 *
 * Never throws at its callers: a file that cannot be opened, read or
 * written turns the history off with one log line, and the dashboard goes
 * on live without it (status says why).
 */
export class HistoryStore {
  private db: Database.Database | null = null;
  private state: HistoryStatus;
  private prunedAt = 0;
  /** per target: the server start and settings last recorded */
  private lastState = new Map<string, { epoch: number; json: string; settings: Settings }>();
  /** per target and queryid: the minute its text row was last touched */
  private textMinute = new Map<string, number>();
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
   * The key the history keeps a target's rows under: the one function every
   * table of it (and the sampled picture beside it) keys by, so that a change
   * of key (the server's identity rather than the target's name) reaches them all.
   */
  keyFor(target: string): string {
    return target;
  }

  forTarget(target: string): HistorySink {
    if (!this.db) return NO_HISTORY;
    const key = this.keyFor(target);
    return {
      statements: (t, epoch, deltas, textOf) => this.recordStatements(key, t, epoch, deltas, textOf),
      serverState: (t, settings, start) => this.recordServerState(key, t, settings, start) ?? this.restarts(target, start, start + 1)[0] ?? null,
    };
  }

  // ---- writes --------------------------------------------------------------

  recordStatements(target: string, t: number, epoch: number, deltas: readonly StatementDelta[], textOf: (queryid: string) => string | undefined): void {
    if (deltas.length === 0) return;
    this.guard("writing", undefined, (db) => {
      const minute = Math.floor(t / MINUTE) * MINUTE;
      const upsert = db.prepare(UPSERT_MINUTE);
      const text = db.prepare(UPSERT_TEXT);
      db.transaction(() => {
        for (const d of deltas) {
          upsert.run({ target, minute, epoch, queryid: d.queryid, calls: d.calls, execMs: d.execMs, execSq: d.execSq, readMs: d.readMs, blksRead: d.blksRead, blksHit: d.blksHit });
          const key = `${target}\u0000${d.queryid}`;
          const query = textOf(d.queryid);
          if (this.textMinute.get(key) === minute || !query) continue;
          text.run(target, d.queryid, query, minute);
          this.textMinute.set(key, minute);
        }
      })();
      if (this.textMinute.size > 50_000) this.textMinute.clear();
      this.bound(db, t);
    });
  }

  /** Records the settings when they changed; a new server start is a restart (also one inflight was not running for). */
  recordServerState(target: string, t: number, settings: Settings, postmasterStart: number): Restart | null {
    return this.guard("writing", null, (db) => {
      const last = this.lastState.get(target) ?? this.loadState(db, target);
      const json = JSON.stringify(settings);
      let restart: Restart | null = null;
      if (last && last.epoch !== postmasterStart) {
        restart = { at: postmasterStart, seenAt: t, changes: diffSettings(last.settings, settings) };
        db.prepare("INSERT OR IGNORE INTO restarts (target, at, seen_at, changes) VALUES (?, ?, ?, ?)").run(target, restart.at, t, JSON.stringify(restart.changes));
        this.memos.clear();
      }
      if (!last || last.json !== json || last.epoch !== postmasterStart) {
        db.prepare("INSERT OR REPLACE INTO settings (target, t, epoch, settings) VALUES (?, ?, ?, ?)").run(target, t, postmasterStart, json);
      }
      this.lastState.set(target, { epoch: postmasterStart, json, settings });
      return restart;
    });
  }

  /** A restart the lab made (its server start): not one to compare around. */
  noteLabRestart(target: string, epoch: number): void {
    this.guard("writing", undefined, (db) => db.prepare("INSERT OR IGNORE INTO lab_restarts (target, epoch) VALUES (?, ?)").run(target, epoch));
  }

  // ---- reads ---------------------------------------------------------------

  restarts(target: string, from = -FAR, to = FAR): StoredRestart[] {
    return this.guard("reading", [], (db) => {
      const rows = db.prepare(RESTARTS).all(target, from, to) as { at: number; seenAt: number; changes: string; lab: number }[];
      return rows.map((r) => ({ at: r.at, seenAt: r.seenAt, changes: JSON.parse(r.changes) as SettingChange[], lab: r.lab === 1 }));
    });
  }

  sideSums(target: string, q: SideQuery): Map<string, SideSums> {
    return this.guard("reading", new Map(), (db) => {
      const rows = db.prepare(SIDE_SUMS).all({ target, from: q.from, to: q.to, epochFrom: q.epochFrom ?? -FAR, epochTo: q.epochTo ?? FAR }) as (SideSums & { queryid: string })[];
      return new Map(rows.map(({ queryid, ...sums }) => [queryid, sums]));
    });
  }

  texts(target: string, ids: readonly string[]): Map<string, string> {
    return this.guard("reading", new Map(), (db) => {
      const get = db.prepare("SELECT query FROM statement_texts WHERE target = ? AND queryid = ?").pluck();
      return new Map(ids.map((id) => [id, (get.get(target, id) as string | undefined) ?? ""]));
    });
  }

  /** The settings in force at `t` (the newest recorded at or before it). */
  settingsAt(target: string, t: number): Settings | null {
    return this.guard("reading", null, (db) => {
      const json = db.prepare("SELECT settings FROM settings WHERE target = ? AND t <= ? ORDER BY t DESC LIMIT 1").pluck().get(target, t) as string | undefined;
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
    if (cutoff !== null) this.options.log(`history: ${this.options.file} reached its cap of ${Math.round(this.options.maxBytes / 1024 / 1024)} MB: minutes before ${new Date(cutoff).toISOString()} dropped`);
  }

  private loadState(db: Database.Database, target: string) {
    const row = db.prepare("SELECT epoch, settings FROM settings WHERE target = ? ORDER BY t DESC LIMIT 1").get(target) as { epoch: number; settings: string } | undefined;
    return row ? { epoch: row.epoch, json: row.settings, settings: JSON.parse(row.settings) as Settings } : undefined;
  }

  private guard<T>(what: string, fallback: T, body: (db: Database.Database) => T): T {
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

/** What went wrong with the file, in words: not a database, cannot be written, or SQLite's own message. */
export function describeFailure(file: string, err: unknown, what: string): string {
  const code = (err as { code?: string }).code ?? "";
  const message = (err as Error)?.message?.split("\n")[0] ?? String(err);
  if (err instanceof NewerSchemaError) return `${file} cannot be used: ${message}`;
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) return `${file} is not a history inflight can read (${message}): move it away and a new one is started`;
  if (code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_CANTOPEN") || code === "SQLITE_PERM" || /^E(ACCES|PERM|ROFS|NOTDIR|ISDIR|EXIST)$/.test(code) || /directory does not exist/.test(message)) {
    return `${file} cannot be written (${message})`;
  }
  return `${what} ${file} failed (${code && !message.startsWith(code) ? `${code}: ` : ""}${message})`;
}
