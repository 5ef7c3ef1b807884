import "server-only";
import type { SideSums } from "../../model/compare/compare";
import type { MethodMinutes } from "../../model/window/sizing/input";
import type { HistoryStore } from "./store";

// pg_stat_statements' minutes of a range by the io_method each server start
// ran under (issue 41's io_method lever): the exact counterpart of the
// sampled runs, for statements too short to be seen as one. A restart is
// the only way io_method changes, so each start (epoch) ran under one.

const add = (a: SideSums, b: SideSums): SideSums => ({
  calls: a.calls + b.calls,
  execMs: a.execMs + b.execMs,
  execSq: a.execSq + b.execSq,
  readMs: a.readMs === null || b.readMs === null ? null : a.readMs + b.readMs,
  blksRead: a.blksRead + b.blksRead,
  blksHit: a.blksHit + b.blksHit,
});

const MINUTE = 60_000;

/** The minutes that overlap [from, to): pg_stat_statements is kept a minute at a time. */
export function methodMinutes(store: HistoryStore, history: string, rangeFrom: number, to: number): MethodMinutes {
  const from = Math.floor(rangeFrom / MINUTE) * MINUTE;
  const epochs = store.guard(
    "reading",
    [] as { epoch: number; settings: string | null }[],
    (db) =>
      db
        .prepare(
          "SELECT DISTINCT m.epoch, (SELECT s.settings FROM settings s WHERE s.history = m.history AND s.epoch = m.epoch ORDER BY s.t DESC LIMIT 1) AS settings FROM statement_minutes m WHERE m.history = ? AND m.minute >= ? AND m.minute < ?",
        )
        .all(history, from, to) as { epoch: number; settings: string | null }[],
  );
  const byMethod = new Map<string, Map<string, SideSums>>();
  for (const e of epochs) {
    const method = e.settings ? (JSON.parse(e.settings) as Record<string, { setting: string } | undefined>).io_method?.setting : undefined;
    if (!method) continue;
    const sums = byMethod.get(method) ?? new Map<string, SideSums>();
    for (const [id, s] of store.sideSums(history, { from, to, epochFrom: e.epoch, epochTo: e.epoch + 1 }))
      sums.set(id, sums.has(id) ? add(sums.get(id)!, s) : s);
    byMethod.set(method, sums);
  }
  const ids = [...new Set([...byMethod.values()].flatMap((m) => [...m.keys()]))];
  return { byMethod, texts: byMethod.size > 1 ? store.texts(history, ids) : new Map() };
}
