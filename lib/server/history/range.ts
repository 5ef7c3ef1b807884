import "server-only";
import { formatClock, formatDuration } from "../../format";
import { worstFinding } from "../../model/history/samples";
import type { HistoryFinding, HistoryResponse } from "../../schemas/history";
import type { SampleStore } from "./samples";
import type { HistoryStore } from "./store";

export interface HistoryRequest {
  target: string;
  from: number;
  to: number;
  now: number;
}

/** What the reader of a range should know of what the file no longer (or not yet) holds. */
function noteOf(q: HistoryRequest, keptFrom: number | null, retentionMs: number, empty: boolean): string | null {
  const limit = q.now - retentionMs;
  if (q.to <= limit)
    return `This range is older than the history keeps (${formatDuration(retentionMs)}, INFLIGHT_HISTORY): nothing of it is left.`;
  if (q.from < limit)
    return `The history keeps ${formatDuration(retentionMs)} (INFLIGHT_HISTORY): what is before ${formatClock(limit)} is gone.`;
  if (keptFrom !== null && q.from < keptFrom && keptFrom < q.to)
    return `The file holds nothing before ${formatClock(keptFrom)} (its size cap, INFLIGHT_HISTORY_MAX_MB, or inflight was not running).`;
  if (empty)
    return q.from > q.now
      ? "This range is ahead of now."
      : "No second of this range is on disk: inflight was not running, or not watching this target.";
  return null;
}

/** GET /api/targets/{id}/history: the seconds, runs and findings of [from, to), and the restarts in it. */
export function historyPayload(history: HistoryStore, samples: SampleStore, q: HistoryRequest): HistoryResponse {
  const key = history.keyFor(q.target);
  const rows = samples.read(key, q.from, q.to);
  const restarts = history.restarts(key, q.from, q.to).map(({ lab: _lab, ...r }) => r);
  const retentionMs = samples.options.retentionMs;
  const empty = rows.ticks.length === 0 && rows.runs.length === 0;
  return {
    target: q.target,
    from: q.from,
    to: q.to,
    retentionMs,
    ...rows,
    // Each second's load is the sizing view's (GET /sizing): the charts do not draw it, and a day of it is megabytes.
    ticks: rows.ticks.map(({ load: _load, ...t }) => t),
    restarts,
    status: samples.status(q.target),
    note: noteOf(q, rows.keptFrom, retentionMs, empty),
  };
}

const HOUR = 3_600_000;
/** The fleet page asks every 2 s; an hour's worst finding moves slowly. */
const HOUR_FINDING_TTL_MS = 30_000;

/** The fleet row's worst finding of the last hour, from disk (null when none held, or none is kept). */
export function hourFinding(history: HistoryStore, samples: SampleStore, target: string, now: number): HistoryFinding | null {
  if (!samples.on) return null;
  return history.memo(`hour-finding:${target}`, now, HOUR_FINDING_TTL_MS, () =>
    worstFinding(samples.findings(history.keyFor(target), now - HOUR, now)),
  );
}
