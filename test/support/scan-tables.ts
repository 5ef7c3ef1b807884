// Tables for cold scans on a PostgreSQL of a test's own, written at once
// (one connection each). Unlogged: no WAL to write, so a clean restart keeps
// their rows, and a scan reads them exactly as it reads a logged table. Three
// rows a page (fillfactor 10): a scan spends little CPU on each page it
// reads, so it waits on its reads even when the VM's disk answers from the
// host's cache; with 28 rows a page such a scan is on CPU much of the time.
import type pg from "pg";

/** ~2.9 kB of table a row: 140,000 rows make ~400 MB. */
export async function createScanTables(connect: () => Promise<pg.Client>, tables: readonly string[], rows: number): Promise<void> {
  await Promise.all(
    tables.map(async (t) => {
      const c = await connect();
      try {
        await c.query(
          `CREATE UNLOGGED TABLE ${t} WITH (fillfactor = 10) AS SELECT g AS id, repeat(md5(g::text), 8) AS payload FROM generate_series(1, ${rows}) AS g`,
        );
        // What autovacuum would do: its size in pg_class (progress is a share of it).
        await c.query(`VACUUM ANALYZE ${t}`);
      } finally {
        await c.end();
      }
    }),
  );
}
