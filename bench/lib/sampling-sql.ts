// What pgbench runs beside inflight: the sampling statement itself, and four
// parts of it bare, for context. The statement and the two parts cut from it
// (pg_aios alone, pg_stat_activity alone) come from sql/activity_aios.sql as
// the server reads it, so they follow the statement when it changes.
import { sqlText } from "@/lib/server/pg/run";

/** The sampling statement, as a pgbench script wants it: one statement ending in ";". */
export function samplingScript(): string {
  const sql = sqlText("activity_aios").trimEnd();
  return sql.endsWith(";") ? sql + "\n" : sql + ";\n";
}

/** Names of the parts: the comment in each text lets pg_stat_statements' rows be told apart. */
export const PART_NAMES = ["activityFn", "activity", "aios", "select1"] as const;
export type PartName = (typeof PART_NAMES)[number];

export const partMarker = (name: PartName) => `bench part: ${name} */`;

/** The parts, each a pgbench script of one statement. */
export function statementParts(): Record<PartName, string> {
  const sql = sqlText("activity_aios");
  return {
    // the function under the view, without its joins to pg_database and pg_authid (not in sql/: the view hides it)
    activityFn: `SELECT /* bench part: activityFn */ s.pid, s.leader_pid, s.backend_type, s.state, s.wait_event_type, s.wait_event, s.query_id::text, s.query_start, s.datid, s.usesysid, left(s.query, 2000) FROM pg_catalog.pg_stat_get_activity(NULL::integer) s WHERE s.pid <> pg_catalog.pg_backend_pid();`,
    activity: `SELECT /* bench part: activity */ ${activityColumns(sql).join(", ")} FROM pg_catalog.pg_stat_activity a WHERE a.pid <> pg_catalog.pg_backend_pid();`,
    aios: `${oneLine(handlesCte(sql)).replace(/^SELECT /, "SELECT /* bench part: aios */ ")};`,
    select1: `SELECT /* bench part: select1 */ 1;`,
  };
}

function oneLine(sql: string): string {
  return sql.replace(/\s+/g, " ").trim();
}

/** The statement's `handles` CTE: its pg_aios aggregated per pid. */
function handlesCte(sql: string): string {
  const m = /\bhandles AS \(([\s\S]*?)\n\)/.exec(sql);
  if (!m) throw new Error("sql/activity_aios.sql has no `handles AS (...)` CTE any more: bench/lib/sampling-sql.ts must cut its aios part anew");
  return m[1];
}

/** The statement's columns of pg_stat_activity (its handles column left out). */
function activityColumns(sql: string): string[] {
  const m = /\)\s*SELECT ([\s\S]*?)\nFROM pg_catalog\.pg_stat_activity a\b/.exec(sql);
  if (!m) throw new Error("sql/activity_aios.sql no longer selects from pg_catalog.pg_stat_activity a: bench/lib/sampling-sql.ts must cut its activity part anew");
  return m[1]
    .split(/,\s*\n/)
    .map(oneLine)
    .filter((column) => /\ba\./.test(column) && !/\bh\./.test(column));
}
