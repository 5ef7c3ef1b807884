import "server-only";
import type pg from "pg";
import type { LabQuery } from "../../schemas/enums";
import { BITMAP_RANGE_SHARE, BITMAP_SCAN_SETTINGS, demoStatements } from "../demo/statements";
import type { LabStatement } from "./statement";

/**
 * The demo's statements as the lab runs them: its cold sequential scan, and
 * its bitmap heap scan over a fixed tenth of the ids (the middle of the
 * table), so every run reads the same blocks.
 */
export async function presetStatement(
  client: pg.Client,
  query: Exclude<LabQuery, "custom">,
  table: string,
  readRole: string | null,
): Promise<LabStatement> {
  const sql = demoStatements(table, (part) => client.escapeIdentifier(part));
  if (query === "seq") return { sql: sql.seqScan, settings: [], readRole, custom: false };
  const maxId = Number((await client.query<{ max_id: string }>(sql.maxId)).rows[0]?.max_id ?? 0);
  if (maxId < 1) throw new Error(`${table} is empty`);
  const span = Math.max(1, Math.floor(maxId * BITMAP_RANGE_SHARE));
  const from = Math.max(1, Math.floor((maxId - span) / 2));
  const text = sql.rangeScan.replace("$1", String(from)).replace("$2", String(from + span - 1));
  return { sql: text, settings: BITMAP_SCAN_SETTINGS, readRole, custom: false };
}
