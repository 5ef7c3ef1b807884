import "server-only";
import type Database from "better-sqlite3";
import { usedBytes } from "./sqlite.mjs";

// What keeps the file bounded: retention (INFLIGHT_HISTORY, 7 days by
// default) and a size cap (INFLIGHT_HISTORY_MAX_MB) that drops the oldest
// minutes first when a busy server fills it sooner.

/** Deleting down to this share of the cap leaves room before the next prune. */
const CAP_LOW_WATER = 0.9;
/** Each pass over the cap drops this share of the span still kept. */
const CAP_STEP = 0.1;
const MAX_CAP_PASSES = 40;

function histories(db: Database.Database): string[] {
  return db.prepare("SELECT DISTINCT history FROM settings UNION SELECT DISTINCT history FROM statement_texts").pluck().all() as string[];
}

/** Everything older than `cutoff` goes, but the settings in force at the cutoff stay. */
export function pruneBefore(db: Database.Database, cutoff: number): void {
  const minutes = db.prepare("DELETE FROM statement_minutes WHERE history = ? AND minute < ?");
  const texts = db.prepare("DELETE FROM statement_texts WHERE history = ? AND last_minute < ?");
  const settings = db.prepare(
    "DELETE FROM settings WHERE history = @history AND t < (SELECT max(t) FROM settings WHERE history = @history AND t <= @cutoff)",
  );
  db.transaction(() => {
    for (const history of histories(db)) {
      minutes.run(history, cutoff);
      texts.run(history, cutoff);
      settings.run({ history, cutoff });
    }
    db.prepare("DELETE FROM restarts WHERE at < ?").run(cutoff);
    db.prepare("DELETE FROM lab_restarts WHERE epoch < ?").run(cutoff);
    db.prepare("DELETE FROM lab_results WHERE at < ?").run(cutoff);
  })();
}

/**
 * Over the cap: the oldest minutes go, a tenth of the span kept at a time,
 * until the file is under 90% of it; the freed pages are given back.
 * Returns the new oldest minute kept (null when nothing was dropped).
 */
export function enforceCap(db: Database.Database, maxBytes: number, now: number): number | null {
  if (usedBytes(db) <= maxBytes) return null;
  const oldestOf = db.prepare("SELECT min(minute) FROM statement_minutes WHERE history = ?").pluck();
  let cutoff: number | null = null;
  for (let pass = 0; pass < MAX_CAP_PASSES && usedBytes(db) > maxBytes * CAP_LOW_WATER; pass++) {
    const oldest = Math.min(...histories(db).map((t) => (oldestOf.get(t) as number | null) ?? Number.POSITIVE_INFINITY));
    if (!Number.isFinite(oldest)) break;
    cutoff = Math.max(oldest + 60_000, Math.round(oldest + (now - oldest) * CAP_STEP));
    pruneBefore(db, cutoff);
  }
  db.pragma("incremental_vacuum");
  db.pragma("wal_checkpoint(TRUNCATE)");
  return cutoff;
}
