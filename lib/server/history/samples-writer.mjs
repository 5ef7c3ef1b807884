import "server-only";
import { parentPort, workerData } from "node:worker_threads";
import { capSamples, openSamples, pruneSamples, writeSamples } from "./samples-db.mjs";

// The history's writer, a worker_thread of its own (writer.ts
// starts it): it owns the connection that writes the file, so a slow, full
// or locked disk holds this thread, never the main one's sampling. Each
// batch is written in one transaction, then the file is pruned to the
// retention and held under its cap; the answer says whether the batch was
// written, and what went wrong. Batches are taken in the order posted; a
// "close" after them ends the thread once they are written.

/** @type {{ file: string, retentionMs: number, maxBytes: number, lockWaitMs: number, pruneEveryMs: number }} */
const config = workerData;
/** @type {import("better-sqlite3").Database | null} */
let db = null;
let prunedAt = Number.NEGATIVE_INFINITY;

/** @param {unknown} err */
const described = (err) => ({
  code: /** @type {{ code?: string }} */ (err)?.code,
  message: err instanceof Error ? err.message : String(err),
});

function closeDb() {
  try {
    db?.close();
  } catch {
    // a broken file may not close cleanly either; it is opened again for the next batch
  }
  db = null;
}

/** Pruned to the retention (every pruneEveryMs) and held under the cap: the new oldest time kept when the cap dropped rows. */
function bound(/** @type {import("better-sqlite3").Database} */ open, /** @type {number} */ now) {
  if (now - prunedAt >= config.pruneEveryMs) {
    prunedAt = now;
    pruneSamples(open, now - config.retentionMs);
  }
  return capSamples(open, config.maxBytes, now);
}

parentPort?.on(
  "message",
  (/** @type {{ type: "write", id: number, now: number, batch: import("./samples-db.mjs").KeyedRows[] } | { type: "close" }} */ m) => {
    if (m.type === "close") {
      closeDb();
      parentPort?.close();
      return;
    }
    let written = false;
    try {
      db ??= openSamples(config.file, config.lockWaitMs);
      writeSamples(db, m.batch);
      written = true;
      parentPort?.postMessage({ id: m.id, written, capped: bound(db, m.now), error: null });
    } catch (err) {
      closeDb();
      parentPort?.postMessage({ id: m.id, written, capped: null, error: described(err) });
    }
  },
);
