import type Database from "better-sqlite3";

export function openSqlite(file: string, timeoutMs: number): Database.Database;
export function usedBytes(db: Database.Database): number;
export const CACHE_KB: number;
