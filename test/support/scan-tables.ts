// Tables for cold scans on a PostgreSQL of a test's own, written at once
// (one connection each). Unlogged: no WAL to write, so a clean restart keeps
// their rows, and a scan reads them exactly as it reads a logged table. A
// user's table of documents: an id, a time and a body of about 1.9 kB (under
// the 2 kB at which PostgreSQL would compress or move it out of line), at
// the default fillfactor, four rows to a full page. A scan of it spends
// little CPU on each page it reads, so it waits on its reads even when the
// VM's disk answers from the host's cache; a table of narrow rows (forty a
// page) is on CPU much of the time there, and then "reads are not its
// bottleneck" is the right finding.
import type pg from "pg";

/** Rows of about 2 kB, four to a page: this many make a MB of table. */
const ROWS_PER_MB = 512;

/** `mb` of table each (the size pg_relation_size gives, give or take a percent). */
export async function createScanTables(connect: () => Promise<pg.Client>, tables: readonly string[], mb: number): Promise<void> {
  await Promise.all(
    tables.map(async (t) => {
      const c = await connect();
      try {
        await c.query(
          `CREATE UNLOGGED TABLE ${t} AS
             SELECT g::bigint AS id, timestamptz '2025-01-01 00:00:00+00' + g * interval '1 second' AS created_at, repeat(md5(g::text), 59) AS body
             FROM generate_series(1, ${Math.round(mb * ROWS_PER_MB)}) AS g`,
        );
        // What autovacuum would do: its size in pg_class (progress is a share of it).
        await c.query(`VACUUM ANALYZE ${t}`);
      } finally {
        await c.end();
      }
    }),
  );
}
