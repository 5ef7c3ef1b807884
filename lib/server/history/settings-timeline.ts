import "server-only";
import type { Settings } from "../../schemas/settings";
import type { HistoryStore } from "./store";

// The settings in force over a range (issue 41's sizing view): the set in
// force at its start, then every set recorded in it (a restart, a reload
// that changed one, a read after inflight started), oldest first.

export function settingsTimeline(store: HistoryStore, history: string, from: number, to: number): { t: number; settings: Settings }[] {
  const first = store.settingsAt(history, from);
  const later = store.guard(
    "reading",
    [],
    (db) =>
      db.prepare("SELECT t, settings FROM settings WHERE history = ? AND t > ? AND t <= ? ORDER BY t").all(history, from, to) as {
        t: number;
        settings: string;
      }[],
  );
  return [
    ...(first ? [{ t: from, settings: first }] : []),
    ...later.map((r) => ({ t: r.t, settings: JSON.parse(r.settings) as Settings })),
  ];
}
