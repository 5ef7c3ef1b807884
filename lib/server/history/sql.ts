import "server-only";

// The history file's statements the store runs on every read of the collector
// (and the comparison's), named once.
export const UPSERT_MINUTE = `
INSERT INTO statement_minutes (history, minute, epoch, queryid, calls, exec_ms, exec_sq, read_ms, blks_read, blks_hit)
VALUES (@history, @minute, @epoch, @queryid, @calls, @execMs, @execSq, @readMs, @blksRead, @blksHit)
ON CONFLICT (history, minute, epoch, queryid) DO UPDATE SET
  calls = calls + excluded.calls, exec_ms = exec_ms + excluded.exec_ms, exec_sq = exec_sq + excluded.exec_sq,
  read_ms = CASE WHEN read_ms IS NULL OR excluded.read_ms IS NULL THEN NULL ELSE read_ms + excluded.read_ms END,
  blks_read = blks_read + excluded.blks_read, blks_hit = blks_hit + excluded.blks_hit`;
export const UPSERT_TEXT = `
INSERT INTO statement_texts (history, queryid, query, last_minute) VALUES (?, ?, ?, ?)
ON CONFLICT (history, queryid) DO UPDATE SET last_minute = excluded.last_minute`;
export const SIDE_SUMS = `
SELECT queryid, sum(calls) AS calls, sum(exec_ms) AS execMs, sum(exec_sq) AS execSq,
       CASE WHEN count(read_ms) = count(*) THEN sum(read_ms) END AS readMs,
       sum(blks_read) AS blksRead, sum(blks_hit) AS blksHit
FROM statement_minutes
WHERE history = @history AND minute >= @from AND minute < @to AND epoch >= @epochFrom AND epoch < @epochTo
GROUP BY queryid`;
export const RESTARTS = `
SELECT r.at, r.seen_at AS seenAt, r.changes, EXISTS (SELECT 1 FROM lab_restarts l WHERE l.history = r.history AND l.epoch = r.at) AS lab
FROM restarts r WHERE r.history = ? AND r.at >= ? AND r.at < ? ORDER BY r.at`;
