import "server-only";
import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

// Plain JavaScript, not TypeScript: the history's writer runs in a
// worker_thread from this folder's files as they are on disk (Next bundles
// the server, and a worker cannot load a file of the bundle by name), and
// the history, the picture's reader and the writer must open their files
// the same way. The worker runs with the react-server condition, where
// "server-only" is the empty module it is in Next's server build.

/** Each connection's page cache, KiB. */
export const CACHE_KB = 2000;

/**
 * A SQLite file of inflight's (history.db, or the history's samples), made if
 * needed, with the pragmas both keep: the caller checks its schema, and
 * closes it if that throws.
 * @param {string} file
 * @param {number} timeoutMs how long a statement waits for another connection's lock
 * @returns {import("better-sqlite3").Database}
 */
export function openSqlite(file, timeoutMs) {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, { timeout: timeoutMs });
  try {
    // Only takes effect on a new file (before its first table): freed pages
    // can then be given back, so deleting old rows shrinks the file.
    db.pragma("auto_vacuum = INCREMENTAL");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    // better-sqlite3 builds SQLite with a 16 MB page cache per connection (SQLITE_DEFAULT_CACHE_SIZE=-16000,
    // its deps/defines.gypi), filled as the files grow over the day: up to 48 MB outside V8 for the three
    // connections, which the soak saw as RSS rising after every full collection. SQLite's own default, 2 MB:
    // the writer appends to the newest pages, the readers read a range once, and the OS caches the file.
    db.pragma(`cache_size = -${CACHE_KB}`);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Pages in use (the file less its free pages), bytes.
 * @param {import("better-sqlite3").Database} db
 * @returns {number}
 */
export function usedBytes(db) {
  const pageSize = db.pragma("page_size", { simple: true });
  const pages = db.pragma("page_count", { simple: true });
  const free = db.pragma("freelist_count", { simple: true });
  return (pages - free) * pageSize;
}
