import "server-only";
// INFLIGHT_REDACT: query text without its literals. pg_stat_statements'
// normalised text is used where the query id matches; otherwise string,
// numeric and dollar-quoted literals are replaced here.
import type { QueryRun, StatementStat } from "../../schemas/runs";

const LITERALS = /\$\d+|\$([A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?\$\1\$|[EeBbXxUu]?&?'(?:[^']|'')*'|\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b/g;

export function redactLiterals(sql: string): string {
  // $1-style parameters are already placeholders.
  return sql.replace(LITERALS, (match) => (/^\$\d+$/.test(match) ? match : "?"));
}

export function redactQuery(query: string, normalised: string | undefined): string {
  if (normalised) return normalised;
  return redactLiterals(query);
}

/** Runs with redacted text: the statement's normalised text where its query id is known. */
export function redactRuns(runs: QueryRun[], statements: readonly StatementStat[]): QueryRun[] {
  const normalised = new Map(statements.map((s) => [s.queryId, s.query]));
  return runs.map((r) => ({ ...r, query: redactQuery(r.query, r.queryId ? normalised.get(r.queryId) : undefined) }));
}
