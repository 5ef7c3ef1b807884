import type Database from "better-sqlite3";
import type { SampleRows } from "../../model/history/samples";

/** One target's rows of a batch, under the history's key for it. */
export interface KeyedRows {
  key: string;
  rows: SampleRows;
}

export const SAMPLES_SCHEMA_VERSION: number;
export function pack(rows: readonly unknown[]): Buffer;
export function unpack<T>(blob: Buffer): T[];
export function samplesFile(historyFile: string): string;
export function openSamples(file: string, timeoutMs: number): Database.Database;
export function writeSamples(db: Database.Database, batch: readonly KeyedRows[]): void;
export function pruneSamples(db: Database.Database, cutoff: number): void;
export function oldestSample(db: Database.Database, target?: string): number | null;
export function capSamples(db: Database.Database, maxBytes: number, now: number): number | null;
