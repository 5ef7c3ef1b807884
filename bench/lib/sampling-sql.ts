// What pgbench runs beside inflight: inflight's sampling statements, and
// parts of them bare, for context. They come from sql/ as the server reads
// them, so they follow the statements when they change.
import { sqlText } from "@/lib/server/pg/run";

/** activity.sql with its one parameter (the runs already held) empty, as a pgbench statement. */
function activityStatement(): string {
  const sql = withoutComments(sqlText("activity")).replace("$1::text[]", "'{}'::text[]");
  if (sql.includes("$1")) throw new Error("sql/activity.sql has another parameter now: bench/lib/sampling-sql.ts must fill it in");
  return sql;
}

/** The sampling statement, as a pgbench script wants it: one statement ending in ";". */
export function samplingScript(): string {
  const sql = activityStatement();
  return sql.endsWith(";") ? sql + "\n" : sql + ";\n";
}

/** Names of the parts: the comment in each text lets pg_stat_statements' rows be told apart. */
export const PART_NAMES = ["activityFn", "activity", "aios", "select1"] as const;
export type PartName = (typeof PART_NAMES)[number];

export const partMarker = (name: PartName) => `bench part: ${name} */`;

/** The parts, each a pgbench script of one statement. */
export function statementParts(): Record<PartName, string> {
  return {
    // activity.sql itself: pg_stat_get_activity(NULL), the function under the view
    activityFn: `${oneLine(activityStatement()).replace(/^SELECT \/\* inflight:activity \*\//, "SELECT /* bench part: activityFn */")};`,
    // the view, with the columns activity.sql reads of the function, for context
    activity: `SELECT /* bench part: activity */ a.pid, a.leader_pid, a.backend_type, a.state, a.wait_event_type, a.wait_event, a.query_id::text, a.query_start, a.datname, a.usename, left(a.query, 2000) FROM pg_catalog.pg_stat_activity a WHERE a.pid <> pg_catalog.pg_backend_pid();`,
    aios: `${oneLine(sqlText("aios")).replace(/^SELECT \/\* inflight:aios \*\//, "SELECT /* bench part: aios */")};`,
    select1: `SELECT /* bench part: select1 */ 1;`,
  };
}

/** The statement without the file's comment lines. */
function withoutComments(sql: string): string {
  return sql
    .split("\n")
    .filter((l) => !l.trim().startsWith("--"))
    .join("\n")
    .trim();
}

function oneLine(sql: string): string {
  return withoutComments(sql).replace(/\s+/g, " ");
}
