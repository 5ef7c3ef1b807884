// What to run to fix what the page warns about: written once, quoted by the
// checks, the pg_stat_statements note and the banners alike.

export const TRACK_IO_TIMING_SQL = "ALTER SYSTEM SET track_io_timing = on;\nSELECT pg_reload_conf();";

/** Words a role name cannot be written as bare in GRANT ... TO (quoted, they are ordinary names). */
const RESERVED = new Set(["all", "current_role", "current_user", "group", "none", "public", "session_user", "user"]);

/** A role name as SQL: bare when it reads the same unquoted, else double-quoted. */
export function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) && !RESERVED.has(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

export const grantMonitorSql = (role: string) => `GRANT pg_monitor TO ${quoteIdent(role)};`;
