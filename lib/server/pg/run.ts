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

/**
 * A file of sql/ as it is sent: without the comment lines that head it.
 * pg_stat_activity keeps only the first track_activity_query_size bytes of a
 * query (1024 by default), and another inflight watching the same server
 * tells inflight's statements from the workload by their marker
 * (`/* inflight:<name> *\/`, just after SELECT): behind a long header it was
 * cut off, and each inflight listed the other's sampling as runs.
 */
export function statementOf(file: string): string {
  const lines = file.split("\n");
  let first = 0;
  while (first < lines.length && (lines[first].trim() === "" || lines[first].trimStart().startsWith("--"))) first++;
  return lines.slice(first).join("\n");
}

export function sqlText(name: QueryName): string {
  let text = texts.get(name);
  if (text === undefined) {
    text = statementOf(readFileSync(path.join(process.cwd(), "sql", `${name}.sql`), "utf8"));
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
