import "server-only";

/**
 * The demo's bookkeeping (its backend's pid, the table's files to evict, its
 * id range) is not the workload it shows: marked as inflight's own
 * statements are (lib/model/window/stat-statements.ts, OWN_MARKER), inside the
 * text where pg_stat_statements keeps it, so the Statements panel and the
 * runs leave it out as they leave out inflight's sampling.
 */
export const BOOKKEEPING = "/* inflight:demo_bookkeeping */";

/** The demo workload's statements for one table (its name quoted by `quote`), shared with the lab. */
export function demoStatements(table: string, quote: (name: string) => string) {
  const t = table.split(".").map(quote).join(".");
  return {
    // Hex-only payloads never match: the scan reads the whole heap and returns nothing.
    seqScan: `SELECT count(*), avg(reading) FROM ${t} WHERE payload LIKE '%zz%'`,
    rangeScan: `SELECT count(*), avg(reading) FROM ${t} WHERE id BETWEEN $1 AND $2`,
    pointLookups: `SELECT count(*), sum(reading) FROM ${t} WHERE id = ANY($1::bigint[])`,
    update: `UPDATE ${t} SET reading = reading + 0.5 WHERE id > $1 AND id <= $2`,
    vacuum: `VACUUM ${t}`,
    maxId: `SELECT ${BOOKKEEPING} coalesce(max(id), 0)::bigint AS max_id FROM ${t}`,
  };
}

/** What makes the range scan a bitmap heap scan (the planner would pick an index or a sequential scan). */
export const BITMAP_SCAN_SETTINGS: readonly [string, string][] = [
  ["enable_seqscan", "off"],
  ["enable_indexscan", "off"],
];

/** Share of the id range the bitmap heap scan covers. */
export const BITMAP_RANGE_SHARE = 0.1;
