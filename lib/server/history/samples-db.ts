import "server-only";
import path from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import Database from "better-sqlite3";
import { usedBytes } from "./bounds";
import { openSqlite } from "./schema";

// The sampled picture's file, next to the history's (history.db ->
// history-samples.db): its own file, so a second a row never crowds the
// per-minute statements out of the history's cap, and a failure of one
// leaves the other working. Each row's JSON is the wire shape.

export const SAMPLES_SCHEMA_VERSION = 1;

// Ticks and runs are kept in batches, one row per flush and target, the
// batch's JSON deflated: a busy target's runs differ in a few figures, and
// a batch of them packs several times smaller than a row each.
const DDL = `
CREATE TABLE IF NOT EXISTS sample_ticks (
  target TEXT    NOT NULL,
  t_from INTEGER NOT NULL,
  t_to   INTEGER NOT NULL,
  data   BLOB    NOT NULL
);
CREATE INDEX IF NOT EXISTS sample_ticks_to ON sample_ticks (target, t_to);
CREATE TABLE IF NOT EXISTS sample_runs (
  target      TEXT    NOT NULL,
  started_min INTEGER NOT NULL,
  seen_max    INTEGER NOT NULL,
  data        BLOB    NOT NULL
);
CREATE INDEX IF NOT EXISTS sample_runs_seen ON sample_runs (target, seen_max);
CREATE TABLE IF NOT EXISTS sample_findings (
  target TEXT    NOT NULL,
  id     TEXT    NOT NULL,
  since  INTEGER NOT NULL,
  seen   INTEGER NOT NULL,
  data   TEXT    NOT NULL,
  PRIMARY KEY (target, id, since)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sample_findings_seen ON sample_findings (target, seen);
`;

/** A batch's rows as stored: JSON, deflated. */
export function pack(rows: readonly unknown[]): Buffer {
  return deflateRawSync(JSON.stringify(rows));
}

export function unpack<T>(blob: Buffer): T[] {
  return JSON.parse(inflateRawSync(blob).toString("utf8")) as T[];
}

/** history.db -> history-samples.db (any other name: NAME-samples.db beside it). */
export function samplesFile(historyFile: string): string {
  const { dir, name } = path.parse(historyFile);
  return path.join(dir, `${name}-samples.db`);
}

/** Opens (or makes) the file; throws what SQLite throws, like the history's. */
export function openSamples(file: string): Database.Database {
  const db = openSqlite(file, 500);
  try {
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > SAMPLES_SCHEMA_VERSION) throw new Error(`${file} was written by a newer inflight (samples schema ${version}; this one knows ${SAMPLES_SCHEMA_VERSION})`);
    db.exec(DDL);
    if (version < SAMPLES_SCHEMA_VERSION) db.pragma(`user_version = ${SAMPLES_SCHEMA_VERSION}`);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Everything last seen before `cutoff` goes (all targets). */
export function pruneSamples(db: Database.Database, cutoff: number): void {
  db.transaction(() => {
    db.prepare("DELETE FROM sample_ticks WHERE t_to < ?").run(cutoff);
    db.prepare("DELETE FROM sample_runs WHERE seen_max < ?").run(cutoff);
    db.prepare("DELETE FROM sample_findings WHERE seen < ?").run(cutoff);
  })();
}

/** The oldest second kept; null when none is. */
export function oldestSample(db: Database.Database, target?: string): number | null {
  const sql = target === undefined ? "SELECT min(t_from) FROM sample_ticks" : "SELECT min(t_from) FROM sample_ticks WHERE target = ?";
  const stmt = db.prepare(sql).pluck();
  return ((target === undefined ? stmt.get() : stmt.get(target)) as number | null) ?? null;
}

/**
 * Over the cap: the oldest tenth of the span kept goes, until the file is
 * under 90% of it, as the history's cap does. Returns the new oldest time
 * kept (null when nothing was dropped).
 */
export function capSamples(db: Database.Database, maxBytes: number, now: number): number | null {
  if (usedBytes(db) <= maxBytes) return null;
  let cutoff: number | null = null;
  for (let pass = 0; pass < 40 && usedBytes(db) > maxBytes * 0.9; pass++) {
    const oldest = oldestSample(db);
    if (oldest === null) break;
    cutoff = Math.max(oldest + 1000, Math.round(oldest + (now - oldest) * 0.1));
    pruneSamples(db, cutoff);
  }
  db.pragma("incremental_vacuum");
  db.pragma("wal_checkpoint(TRUNCATE)");
  return cutoff;
}
