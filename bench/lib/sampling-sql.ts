// What pgbench runs beside inflight: inflight's two sampling statements as
// sql/ has them (activity.sql every tick, aios.sql while a backend is
// active), and, for context, the view pg_stat_activity and SELECT 1; and
// figure 9's bare reads of each view. They come from sql/ as the server
// reads them, so they follow the statements when they change. Each carries
// a marker (pgss.ts: statementMarker) that tells its pg_stat_statements row
// apart; no two share a parse tree, so no two share a queryid
// (pg_stat_statements ignores comments when it makes one).
import { sqlText } from "@/lib/server/pg/run";

/** activity.sql with its two parameters (the runs already held, and their pids) empty. */
function activityStatement(): string {
  const sql = oneLine(sqlText("activity")).replaceAll("$1::text[]", "'{}'::text[]").replace("$2::int4[]", "'{}'::int4[]");
  if (/\$\d/.test(sql)) throw new Error("sql/activity.sql has another parameter now: bench/lib/sampling-sql.ts must fill it in");
  return sql;
}

/** Names of what pgbench runs beside inflight (figure 1). */
export const PGBENCH_NAMES = ["activity", "aios", "view", "select1"] as const;
export type PgbenchName = (typeof PGBENCH_NAMES)[number];

/**
 * The marker each one carries. pgbench takes `:name` anywhere in a script
 * (comments and string literals too) for a variable of its own, so the
 * files' `/* inflight:<file> *\/` becomes `/* bench part: <file> *\/` in
 * pgbench's copies (a colon before a space is left alone).
 */
export const PGBENCH_MARKERS = {
  activity: "part:activity",
  aios: "part:aios",
  view: "part:view",
  select1: "part:select1",
} as const satisfies Record<PgbenchName, string>;

export const partMarker = (name: string) => `/* bench part: ${name} */`;

/** A file of sql/ on one line, its own marker replaced by a bench part's. */
function asPart(file: "activity" | "aios", sql: string): string {
  const own = `/* inflight:${file} */`;
  if (!sql.includes(own))
    throw new Error(`sql/${file}.sql has no ${own} marker: bench/lib/sampling-sql.ts cannot tell pgbench's copy apart`);
  return sql.replace(own, partMarker(file));
}

/** Each a pgbench script of one statement on one line, ending in ";". */
export function pgbenchScripts(): Record<PgbenchName, string> {
  return {
    // activity.sql itself: pg_stat_get_activity(NULL), the function under the view
    activity: `${asPart("activity", activityStatement())};`,
    // aios.sql itself: pg_aios by pid
    aios: `${asPart("aios", oneLine(sqlText("aios")))};`,
    // the view, with the columns activity.sql reads of the function: what the view's joins cost
    view: `SELECT ${partMarker("view")} a.pid, a.leader_pid, a.backend_type, a.state, a.wait_event_type, a.wait_event, a.query_id::text, a.query_start, a.datname, a.usename, left(a.query, 2000) FROM pg_catalog.pg_stat_activity a WHERE a.pid <> pg_catalog.pg_backend_pid();`,
    select1: `SELECT ${partMarker("select1")} 1;`,
  };
}

/** Figure 9's bare reads, as the issue measured them: each view read once, nothing aggregated but a count. */
export const BARE_NAMES = ["aiosCount", "activityCount"] as const;
export type BareName = (typeof BARE_NAMES)[number];

export function bareScripts(): Record<BareName, string> {
  return {
    aiosCount: `SELECT ${partMarker("aiosCount")} count(*) FROM pg_catalog.pg_aios;`,
    activityCount: `SELECT ${partMarker("activityCount")} count(*) FROM pg_catalog.pg_stat_get_activity(NULL);`,
  };
}

/** The statement without the file's comment lines, on one line. */
function oneLine(sql: string): string {
  return sql
    .split("\n")
    .filter((l) => !l.trim().startsWith("--"))
    .join("\n")
    .trim()
    .replace(/\s+/g, " ")
    .replace(/;$/, "");
}
