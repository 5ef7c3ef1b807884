import "server-only";
import type { SideSums } from "../../model/compare/compare";
import type { Restart, Settings } from "../../schemas/settings";
import type { ServerRow } from "./servers";

// What the comparison reads of the history (store.ts implements it): its
// own interface, so that the store can use the comparison too (the
// findings' measures) without the two importing each other.

/** A restart as the history keeps it; `lab`: one of the lab's own. */
export type StoredRestart = Restart & { lab: boolean };

export interface SideQuery {
  from: number;
  to: number;
  /** only minutes of servers started in [epochFrom, epochTo) */
  epochFrom?: number;
  epochTo?: number;
}

export type HistoryStatus = { on: true } | { on: false; reason: string };

export interface HistoryReader {
  readonly status: HistoryStatus;
  readonly retentionMs: number;
  historyOf(target: string): string | null;
  server(history: string): ServerRow | null;
  restarts(history: string): StoredRestart[];
  sideSums(history: string, q: SideQuery): Map<string, SideSums>;
  texts(history: string, ids: readonly string[]): Map<string, string>;
  settingsAt(history: string, t: number): Settings | null;
  memo<T>(key: string, now: number, ttlMs: number, compute: () => T): T;
}
