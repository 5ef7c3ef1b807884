import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Client } from "pg";
import { z } from "zod";

// Every statement the collector runs is a file under sql/, read once, run as
// a named (prepared) statement, and its rows parsed with zod.

export const STATEMENT_NAMES = [
  "capabilities",
  "activity_aios",
  "activity",
  "stat_io",
  "stat_io_op_bytes",
  "settings",
  "server_info",
  "relation",
  "databases",
  "statements",
  "statements_legacy",
  "statement_texts",
] as const;
export type StatementName = (typeof STATEMENT_NAMES)[number];

const cache = new Map<StatementName, string>();

export function sqlText(name: StatementName): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(path.join(process.cwd(), "sql", `${name}.sql`), "utf8");
    cache.set(name, text);
  }
  return text;
}

export class RowShapeError extends Error {
  constructor(statement: StatementName, detail: string) {
    super(`rows of ${statement}.sql do not match their schema: ${detail}`);
    this.name = "RowShapeError";
  }
}

export async function runStatement<T extends z.ZodType>(
  client: Client,
  name: StatementName,
  schema: T,
  values: unknown[] = [],
): Promise<z.infer<T>[]> {
  const result = await client.query({ name: `inflight_${name}`, text: sqlText(name), values });
  const parsed = z.array(schema).safeParse(result.rows);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RowShapeError(name, `${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}
