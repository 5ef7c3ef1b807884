// Drops a table's files from the OS page cache, so the next scan reads the
// disk: shared by the integration tests and the Playwright specs (no vitest
// here, so a spec can import it).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type pg from "pg";

/** Drops a relation's (and its indexes') files from the OS page cache, so the
 * next read really reaches the disk (posix_fadvise DONTNEED through dd). */
export async function evictFromPageCache(client: pg.Client, dataDir: string, table: string): Promise<void> {
  await client.query("CHECKPOINT");
  const { rows } = await client.query<{ path: string }>(
    `SELECT pg_relation_filepath($1::regclass) AS path
     UNION ALL SELECT pg_relation_filepath(indexrelid) FROM pg_index WHERE indrelid = $1::regclass`,
    [table],
  );
  for (const { path: rel } of rows) {
    const base = path.join(dataDir, rel);
    for (let seg = 0; ; seg++) {
      const file = seg === 0 ? base : `${base}.${seg}`;
      if (!existsSync(file)) break;
      const dd = spawnSync("dd", [`if=${file}`, "iflag=nocache", "count=0"], { encoding: "utf8" });
      if (dd.status !== 0) throw new Error(`dd failed on ${file}: ${dd.stderr}`);
    }
  }
}
