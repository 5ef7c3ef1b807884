import "server-only";
import { compareSides, verdictCounts } from "../../model/compare/compare";
import { methodMeasures, type MethodMeasures } from "../../model/compare/measured";
import type { CompareResponse, RestartSummary } from "../../schemas/compare";
import type { Restart } from "../../schemas/settings";
import { diffSettings } from "../../model/window/settings";
import { redactLiterals } from "../payloads/redact";
import { LEGACY_PREFIX } from "./schema";
import type { HistoryReader, SideQuery, StoredRestart } from "./reader";

const MINUTE = 60_000;
/** An `at` this close to a restart means that restart. */
const SNAP_MS = 60_000;
const MAX_ROWS = 200;

export interface CompareRequest {
  /** the target's id (the page's) */
  target: string;
  /** the history of its server (store.historyOf), or one named by id; null when none is known yet */
  history: string | null;
  /** default: the last restart that was not the lab's */
  at?: number;
  beforeMs: number;
  afterMs: number;
  now: number;
  redact: boolean;
}

const floorMinute = (t: number) => Math.floor(t / MINUTE) * MINUTE;

/** The restart `at` names, or by default the last one the lab did not make. */
function pickRestart(restarts: StoredRestart[], at: number | undefined): StoredRestart | null {
  if (at === undefined) return restarts.filter((r) => !r.lab).at(-1) ?? null;
  let best: StoredRestart | null = null;
  for (const r of restarts) {
    const d = Math.min(Math.abs(r.at - at), Math.abs(r.seenAt - at));
    if (d <= SNAP_MS && (!best || d < Math.min(Math.abs(best.at - at), Math.abs(best.seenAt - at)))) best = r;
  }
  return best;
}

interface Sides {
  before: SideQuery;
  after: SideQuery;
  /** what bounds the after side before its full length */
  afterEnd: "now" | "restart" | null;
}

/**
 * Around a restart, each side is one server (the epoch), so the minute the
 * restart fell in splits cleanly; a side stops at the restart before or
 * after it. The spans are on inflight's clock (seenAt), the epochs on the
 * target's.
 */
function restartSides(r: Restart, prev: Restart | undefined, next: Restart | undefined, q: CompareRequest): Sides {
  const beforeFrom = Math.max(r.seenAt - q.beforeMs, prev?.seenAt ?? -Infinity);
  const fullAfter = r.seenAt + q.afterMs;
  const afterTo = Math.min(fullAfter, next?.seenAt ?? Infinity, q.now);
  return {
    before: { from: beforeFrom, to: r.seenAt, epochFrom: prev?.at, epochTo: r.at },
    after: { from: r.seenAt, to: afterTo, epochFrom: r.at, epochTo: next?.at },
    afterEnd: afterTo >= fullAfter ? null : next && next.seenAt <= Math.min(fullAfter, q.now) ? "restart" : "now",
  };
}

/** Around a moment that is not a restart: by minute. */
function momentSides(at: number, q: CompareRequest): Sides {
  const afterTo = Math.min(at + q.afterMs, q.now);
  return { before: { from: at - q.beforeMs, to: at }, after: { from: at, to: afterTo }, afterEnd: afterTo < at + q.afterMs ? "now" : null };
}

/** A side's span as minute buckets: the minute it starts in, through the minute it ends in. */
const buckets = (s: SideQuery, epochs: boolean): SideQuery => ({
  ...s,
  from: floorMinute(s.from),
  to: epochs ? floorMinute(s.to) + MINUTE : floorMinute(s.to),
});

const NOTES = {
  now: "The after side is still filling: it runs up to now.",
  restart: "The after side ends at the next restart.",
} as const;

/** A history of schema 1 under this target's name that no server has taken over: said, with how to read it. */
function legacyNote(store: HistoryReader, q: CompareRequest): string {
  const legacy = LEGACY_PREFIX + q.target;
  if (q.history === legacy || store.server(legacy)?.address !== null) return "";
  return ` A history kept under the name "${q.target}" from before inflight told servers apart is read with ?history=${encodeURIComponent(legacy)}.`;
}

export function comparePayload(store: HistoryReader, q: CompareRequest): CompareResponse {
  const server = q.history === null ? null : store.server(q.history);
  const history = q.history !== null && server ? { id: q.history, identifiedBy: server.identified_by } : null;
  const empty = {
    target: q.target,
    history,
    rows: [],
    counts: { slower: 0, faster: 0, same: 0, too_few: 0 },
    onlyBefore: 0,
    onlyAfter: 0,
    retentionMs: store.retentionMs,
  };
  const none = { ...empty, at: null, restart: null, changes: [], before: null, after: null };
  if (q.history === null)
    return {
      ...none,
      note: `inflight has not connected to this target yet: its history is its server's, found once it has.${legacyNote(store, q)}`,
    };
  const key = q.history;
  const restarts = store.restarts(key);
  const restart = pickRestart(restarts, q.at);
  if (!restart && q.at === undefined) {
    return {
      ...none,
      note: `No restart of this server is in the history yet: nothing to compare around (or pass at= for another moment).${legacyNote(store, q)}`,
    };
  }
  const i = restart ? restarts.indexOf(restart) : -1;
  const sides = restart ? restartSides(restart, restarts[i - 1], restarts[i + 1], q) : momentSides(q.at!, q);
  const at = restart ? restart.at : q.at!;
  const before = store.sideSums(key, buckets(sides.before, restart !== null));
  const after = store.sideSums(key, buckets(sides.after, restart !== null));
  const ids = [...new Set([...before.keys(), ...after.keys()])];
  const texts = store.texts(
    key,
    ids.filter((id) => before.has(id) && after.has(id)),
  );
  const rows = compareSides(before, after, (id) => {
    const text = texts.get(id) ?? "";
    return q.redact ? redactLiterals(text) : text;
  });
  const changes = restart ? restart.changes : diffSettings(store.settingsAt(key, at) ?? {}, store.settingsAt(key, sides.after.to) ?? {});
  const { lab: _lab, ...plainRestart } = restart ?? { lab: false };
  return {
    ...empty,
    at,
    restart: restart ? (plainRestart as Restart) : null,
    changes,
    before: { from: sides.before.from, to: sides.before.to },
    after: { from: sides.after.from, to: sides.after.to },
    rows: rows.slice(0, MAX_ROWS),
    counts: verdictCounts(rows),
    onlyBefore: ids.filter((id) => before.has(id) && !after.has(id)).length,
    onlyAfter: ids.filter((id) => after.has(id) && !before.has(id)).length,
    note: sides.afterEnd ? NOTES[sides.afterEnd] : null,
  };
}

/** The fleet page asks every 2 s; the verdicts move with the per-minute history. */
const SUMMARY_TTL_MS = 30_000;

/** The fleet row's restart line: the default comparison, or the window's last restart without history. */
export function restartSummary(
  store: HistoryReader,
  target: string,
  now: number,
  windowRestart: Restart | undefined,
): RestartSummary | null {
  const history = store.historyOf(target);
  if (store.status.on && history !== null) {
    const summary = store.memo(`summary:${history}`, now, SUMMARY_TTL_MS, () => {
      const c = comparePayload(store, { target, history, beforeMs: 60 * MINUTE, afterMs: 60 * MINUTE, now, redact: false });
      return c.restart ? { at: c.restart.at, changes: c.changes, counts: c.counts } : null;
    });
    if (summary) return summary;
  }
  return windowRestart ? { at: windowRestart.at, changes: windowRestart.changes, counts: null } : null;
}

/**
 * What the findings may quote: the before/after around this server's last
 * restart that changed io_method (not the lab's), per queryid.
 */
export function measuresOf(store: HistoryReader, history: string, now: number): MethodMeasures {
  const restart = store
    .restarts(history)
    .filter((r) => !r.lab && r.changes.some((c) => c.name === "io_method"))
    .at(-1);
  if (!restart) return new Map();
  return methodMeasures(
    comparePayload(store, { target: history, history, at: restart.at, beforeMs: 60 * MINUTE, afterMs: 60 * MINUTE, now, redact: false }),
  );
}
