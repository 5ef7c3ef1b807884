import "server-only";

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
    maxId: `SELECT coalesce(max(id), 0)::bigint AS max_id FROM ${t}`,
  };
}

/** What makes the range scan a bitmap heap scan (the planner would pick an index or a sequential scan). */
export const BITMAP_SCAN_SETTINGS: readonly [string, string][] = [
  ["enable_seqscan", "off"],
  ["enable_indexscan", "off"],
];

/** Share of the id range the bitmap heap scan covers. */
export const BITMAP_RANGE_SHARE = 0.1;
