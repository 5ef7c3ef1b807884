import "server-only";
import type Database from "better-sqlite3";
import { openSqlite } from "./sqlite.mjs";

// The history file's tables. A history is one server's (servers: its
// address host:port/database and, where the role can read it,
// pg_control_system().system_identifier), never a display name's: two
// servers on one host keep two histories. One row per history, queryid,
// minute and server start (epoch: pg_postmaster_start_time() in ms) holds
// what that statement did in that minute; the epoch tells the two sides of a
// restart apart even inside the minute it happened in.

export const SCHEMA_VERSION = 2;

const DDL = `
CREATE TABLE IF NOT EXISTS servers (
  id             TEXT    NOT NULL PRIMARY KEY,
  address        TEXT,
  system_id      TEXT,
  identified_by  TEXT    NOT NULL,
  server_version TEXT,
  legacy_name    TEXT,
  last_seen      INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS servers_address ON servers (address, last_seen);
CREATE TABLE IF NOT EXISTS statement_minutes (
  history   TEXT    NOT NULL,
  minute    INTEGER NOT NULL,
  epoch     REAL    NOT NULL,
  queryid   TEXT    NOT NULL,
  calls     REAL    NOT NULL,
  exec_ms   REAL    NOT NULL,
  exec_sq   REAL    NOT NULL,
  read_ms   REAL,
  blks_read REAL    NOT NULL,
  blks_hit  REAL    NOT NULL,
  PRIMARY KEY (history, minute, epoch, queryid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS statement_texts (
  history     TEXT    NOT NULL,
  queryid     TEXT    NOT NULL,
  query       TEXT    NOT NULL,
  last_minute INTEGER NOT NULL,
  PRIMARY KEY (history, queryid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS restarts (
  history TEXT NOT NULL,
  at      REAL NOT NULL,
  seen_at INTEGER NOT NULL,
  changes TEXT NOT NULL,
  PRIMARY KEY (history, at)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lab_restarts (
  history TEXT NOT NULL,
  epoch   REAL NOT NULL,
  PRIMARY KEY (history, epoch)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lab_results (
  history TEXT    NOT NULL,
  at      INTEGER NOT NULL,
  lever   TEXT    NOT NULL,
  result  TEXT    NOT NULL,
  PRIMARY KEY (history, at, lever)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS settings (
  history        TEXT    NOT NULL,
  t              INTEGER NOT NULL,
  epoch          REAL    NOT NULL,
  settings       TEXT    NOT NULL,
  server_version TEXT,
  PRIMARY KEY (history, t)
) WITHOUT ROWID;
`;

export class NewerSchemaError extends Error {}

const KEYED = ["statement_minutes", "statement_texts", "restarts", "lab_restarts", "settings"] as const;

/** Schema 1 keyed every row by the target's display name: legacy_name. */
export const LEGACY_PREFIX = "name:";

/**
 * Schema 1 -> 2: nothing is lost. Schema 1 did not record the address a
 * row came from, so each old name becomes a history of its own
 * ("name:<name>", address unknown): the server it was written from takes it
 * over when it is seen again still running since the last start recorded
 * there (store.ts), and until then it stays readable by its id.
 */
function migrateFrom1(db: Database.Database): void {
  db.transaction(() => {
    for (const table of KEYED) db.exec(`ALTER TABLE ${table} RENAME COLUMN target TO history`);
    db.exec("ALTER TABLE settings ADD COLUMN server_version TEXT");
    db.exec(DDL);
    const names = db
      .prepare(KEYED.map((t) => `SELECT DISTINCT history FROM ${t}`).join(" UNION "))
      .pluck()
      .all() as string[];
    const insert = db.prepare(
      "INSERT INTO servers (id, address, system_id, identified_by, legacy_name, last_seen) VALUES (?, NULL, NULL, 'name', ?, ?)",
    );
    const lastSeen = db.prepare("SELECT max(t) FROM settings WHERE history = ?").pluck();
    for (const name of names) insert.run(LEGACY_PREFIX + name, name, (lastSeen.get(name) as number | null) ?? 0);
    for (const table of KEYED) db.prepare(`UPDATE ${table} SET history = ? || history`).run(LEGACY_PREFIX);
  })();
}

/**
 * Opens (or makes) the history's file and its tables. Throws what SQLite
 * throws (not a database, cannot write, ...): the caller turns it into one line.
 */
export function openDatabase(file: string): Database.Database {
  const db = openSqlite(file, 2000);
  try {
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > SCHEMA_VERSION)
      throw new NewerSchemaError(`it was written by a newer inflight (history schema ${version}; this one knows ${SCHEMA_VERSION})`);
    if (version === 1) migrateFrom1(db);
    else db.exec(DDL);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
