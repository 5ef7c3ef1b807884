import "server-only";
import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

// The history file's tables. One row per target, queryid, minute and server
// start (epoch: pg_postmaster_start_time() in ms) holds what that statement
// did in that minute; the epoch tells the two sides of a restart apart even
// inside the minute it happened in.

export const SCHEMA_VERSION = 1;

const DDL = `
CREATE TABLE IF NOT EXISTS statement_minutes (
  target    TEXT    NOT NULL,
  minute    INTEGER NOT NULL,
  epoch     REAL    NOT NULL,
  queryid   TEXT    NOT NULL,
  calls     REAL    NOT NULL,
  exec_ms   REAL    NOT NULL,
  exec_sq   REAL    NOT NULL,
  read_ms   REAL,
  blks_read REAL    NOT NULL,
  blks_hit  REAL    NOT NULL,
  PRIMARY KEY (target, minute, epoch, queryid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS statement_texts (
  target      TEXT    NOT NULL,
  queryid     TEXT    NOT NULL,
  query       TEXT    NOT NULL,
  last_minute INTEGER NOT NULL,
  PRIMARY KEY (target, queryid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS restarts (
  target  TEXT NOT NULL,
  at      REAL NOT NULL,
  seen_at INTEGER NOT NULL,
  changes TEXT NOT NULL,
  PRIMARY KEY (target, at)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lab_restarts (
  target TEXT NOT NULL,
  epoch  REAL NOT NULL,
  PRIMARY KEY (target, epoch)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS settings (
  target   TEXT    NOT NULL,
  t        INTEGER NOT NULL,
  epoch    REAL    NOT NULL,
  settings TEXT    NOT NULL,
  PRIMARY KEY (target, t)
) WITHOUT ROWID;
`;

export class NewerSchemaError extends Error {}

/**
 * Opens (or makes) the file and its tables. Throws what SQLite throws
 * (not a database, cannot write, ...): the caller turns it into one line.
 */
export function openDatabase(file: string): Database.Database {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, { timeout: 2000 });
  try {
    // Only takes effect on a new file (before its first table): freed pages
    // can then be given back, so deleting old minutes shrinks the file.
    db.pragma("auto_vacuum = INCREMENTAL");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new NewerSchemaError(`it was written by a newer inflight (history schema ${version}; this one knows ${SCHEMA_VERSION})`);
    db.exec(DDL);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
