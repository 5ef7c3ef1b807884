import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Client } from "pg";
import { z } from "zod";
import { QUERIES, type QueryName, type RowOf } from "./queries";

// Runs a statement of sql/ as a named (prepared) statement and parses its
// rows with the schema queries.ts gives it. Texts are read once.

/** Where an extension's schema goes in a statement (pg_stat_statements may live in any schema). */
const EXT_SCHEMA = "@extschema@";

const texts = new Map<QueryName, string>();

export function sqlText(name: QueryName): string {
  let text = texts.get(name);
  if (text === undefined) {
    text = readFileSync(path.join(process.cwd(), "sql", `${name}.sql`), "utf8");
    texts.set(name, text);
  }
  return text;
}

export class RowShapeError extends Error {
  constructor(statement: QueryName, detail: string) {
    super(`rows of ${statement}.sql do not match their schema: ${detail}`);
    this.name = "RowShapeError";
  }
}

export interface RunOptions {
  values?: unknown[];
  /** the extension's schema, written in (quoted) where the text says @extschema@;
   * fixed for a connection, so the prepared statement's text is too */
  extSchema?: string;
  /** the round trip in ms, from sending to the last row (parsing not included) */
  timed?: (ms: number) => void;
}

export async function runQuery<N extends QueryName>(client: Client, name: N, options: RunOptions = {}): Promise<RowOf<N>[]> {
  let text = sqlText(name);
  if (text.includes(EXT_SCHEMA)) {
    if (!options.extSchema) throw new Error(`${name}.sql needs the extension's schema`);
    text = text.split(EXT_SCHEMA).join(client.escapeIdentifier(options.extSchema));
  }
  const started = performance.now();
  let result;
  try {
    result = await client.query({ name: `inflight_${name}`, text, values: options.values ?? [] });
  } finally {
    options.timed?.(performance.now() - started);
  }
  const parsed = z.array(QUERIES[name]).safeParse(result.rows);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RowShapeError(name, `${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data as RowOf<N>[];
}
