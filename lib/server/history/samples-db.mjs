import "server-only";
import path from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { openSqlite, usedBytes } from "./sqlite.mjs";

// the history's samples file, next to history.db (history.db ->
// history-samples.db): its own file, so a second a row never crowds the
// per-minute statements out of the history's cap, and a failure of one
// leaves the other working. Each row's JSON is the wire shape. Plain
// JavaScript: the writer's worker_thread (samples-writer.mjs) loads it
// from disk, and the reader on the main thread imports it (types in
// samples-db.d.mts).

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

/** @typedef {import("better-sqlite3").Database} Db */

/** A batch's rows as stored: JSON, deflated. @param {readonly unknown[]} rows */
export function pack(rows) {
  return deflateRawSync(JSON.stringify(rows));
}

/** @param {Buffer} blob */
export function unpack(blob) {
  return JSON.parse(inflateRawSync(blob).toString("utf8"));
}

/** history.db -> history-samples.db (any other name: NAME-samples.db beside it). @param {string} historyFile */
export function samplesFile(historyFile) {
  const { dir, name } = path.parse(historyFile);
  return path.join(dir, `${name}-samples.db`);
}

/**
 * Opens (or makes) the file; throws what SQLite throws, like the history's.
 * @param {string} file
 * @param {number} timeoutMs how long a statement waits for another connection's lock
 * @returns {Db}
 */
export function openSamples(file, timeoutMs) {
  const db = openSqlite(file, timeoutMs);
  try {
    const version = db.pragma("user_version", { simple: true });
    if (version > SAMPLES_SCHEMA_VERSION)
      throw new Error(`${file} was written by a newer inflight (samples schema ${version}; this one knows ${SAMPLES_SCHEMA_VERSION})`);
    db.exec(DDL);
    if (version < SAMPLES_SCHEMA_VERSION) db.pragma(`user_version = ${SAMPLES_SCHEMA_VERSION}`);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

const lowest = (/** @type {number[]} */ xs) => xs.reduce((a, b) => Math.min(a, b), Infinity);
const highest = (/** @type {number[]} */ xs) => xs.reduce((a, b) => Math.max(a, b), -Infinity);

/**
 * One batch of ticks and one of runs per target, the findings a row each, in one transaction.
 * @param {Db} db
 * @param {readonly { key: string, rows: import("../../model/history/samples").SampleRows }[]} batch
 */
export function writeSamples(db, batch) {
  /** @type {Map<string, import("../../model/history/samples").SampleRows>} */
  const byKey = new Map();
  for (const { key, rows } of batch) {
    const into = byKey.get(key) ?? { ticks: [], runs: [], findings: [] };
    into.ticks.push(...rows.ticks);
    into.runs.push(...rows.runs);
    into.findings.push(...rows.findings);
    byKey.set(key, into);
  }
  const ticks = db.prepare("INSERT INTO sample_ticks (target, t_from, t_to, data) VALUES (?, ?, ?, ?)");
  const runs = db.prepare("INSERT INTO sample_runs (target, started_min, seen_max, data) VALUES (?, ?, ?, ?)");
  const finding = db.prepare("INSERT OR REPLACE INTO sample_findings (target, id, since, seen, data) VALUES (?, ?, ?, ?, ?)");
  db.transaction(() => {
    for (const [key, rows] of byKey) {
      if (rows.ticks.length)
        ticks.run(key, Math.floor(lowest(rows.ticks.map((t) => t.t))), Math.ceil(highest(rows.ticks.map((t) => t.t))), pack(rows.ticks));
      if (rows.runs.length)
        runs.run(
          key,
          Math.floor(lowest(rows.runs.map((r) => r.startedAt))),
          Math.ceil(highest(rows.runs.map((r) => r.endedAt ?? r.lastSeen))),
          pack(rows.runs),
        );
      for (const f of rows.findings) finding.run(key, f.id, Math.round(f.from), Math.round(f.to ?? f.seen), JSON.stringify(f));
    }
  })();
}

/** Everything last seen before `cutoff` goes (all targets). @param {Db} db @param {number} cutoff */
export function pruneSamples(db, cutoff) {
  db.transaction(() => {
    db.prepare("DELETE FROM sample_ticks WHERE t_to < ?").run(cutoff);
    db.prepare("DELETE FROM sample_runs WHERE seen_max < ?").run(cutoff);
    db.prepare("DELETE FROM sample_findings WHERE seen < ?").run(cutoff);
  })();
}

/**
 * The oldest second kept; null when none is.
 * @param {Db} db
 * @param {string} [target]
 * @returns {number | null}
 */
export function oldestSample(db, target) {
  const sql = target === undefined ? "SELECT min(t_from) FROM sample_ticks" : "SELECT min(t_from) FROM sample_ticks WHERE target = ?";
  const stmt = db.prepare(sql).pluck();
  return (target === undefined ? stmt.get() : stmt.get(target)) ?? null;
}

/**
 * Over the cap: the oldest tenth of the span kept goes, until the file is
 * under 90% of it, as the history's cap does. Returns the new oldest time
 * kept (null when nothing was dropped).
 * @param {Db} db
 * @param {number} maxBytes
 * @param {number} now
 * @returns {number | null}
 */
export function capSamples(db, maxBytes, now) {
  if (usedBytes(db) <= maxBytes) return null;
  let cutoff = null;
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
