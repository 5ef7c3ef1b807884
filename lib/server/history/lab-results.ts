import "server-only";
import { LabResult } from "../../schemas/lab";
import type { HistoryStore } from "./store";

// The labs' results in the history (issue 41): one row per lab that ended,
// kept as long as the rest of the server's history (bounds.ts), read back by
// the sizing view to cite beside its verdicts.

/** A lab's result as it ended, in the history of the server it ran on. */
export function recordLabResult(store: HistoryStore, history: string, result: LabResult): void {
  store.guard("writing", undefined, (db) => {
    db.prepare("INSERT OR REPLACE INTO lab_results (history, at, lever, result) VALUES (?, ?, ?, ?)").run(
      history,
      Math.round(result.at),
      result.lever,
      JSON.stringify(result),
    );
  });
}

/** The labs of a history that ended in [from, to], oldest first; a row this inflight cannot read is skipped. */
export function labResults(store: HistoryStore, history: string, from: number, to: number): LabResult[] {
  return store.guard("reading", [], (db) => {
    const rows = db
      .prepare("SELECT result FROM lab_results WHERE history = ? AND at >= ? AND at <= ? ORDER BY at")
      .pluck()
      .all(history, from, to) as string[];
    return rows.flatMap((json) => {
      const parsed = LabResult.safeParse(JSON.parse(json));
      return parsed.success ? [parsed.data] : [];
    });
  });
}
