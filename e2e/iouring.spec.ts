import type { ChildProcess } from "node:child_process";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { debianFolder, debianPg, removeDebianPg, type DebianCluster } from "./debian-pg";
import { dropFromOsCache, openTarget, startInflightOn, stopInflight } from "./helpers";

// The target page watching a PostgreSQL 18 with io_method = io_uring
// (Debian's liburing build in a chroot: scripts/iouring-pg.mjs), through a
// second inflight server of this spec's own. Where the machine cannot run
// it, the run fails with the reason (IOURING_TESTS=skip: left out, saying so).

const NAME = `e2e-${process.pid}`;
const TABLE = "public.uring_page";

debianFolder();

/**
 * Drops the table from shared buffers (pg_buffercache, 18) and its files from
 * the OS page cache, so the next scan reads through io_uring again. With
 * shared_buffers larger than four times the table, the scan does not read
 * through a small ring buffer and keeps up to effective_io_concurrency
 * handles in flight (one at a time through the ring), so they are seen.
 */
async function evict(client: pg.Client, dataDir: string): Promise<void> {
  await client.query("SELECT pg_buffercache_evict_relation($1::regclass)", [TABLE]);
  await dropFromOsCache(client, dataDir, TABLE);
}

test.describe("io_method = io_uring", () => {
  let cluster: DebianCluster;
  let server: ChildProcess;
  let base: string;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    cluster = debianPg("start", "--data", NAME, "-c", "shared_buffers=1GB");
    const admin = new pg.Client(cluster.superuserUrl);
    await admin.connect();
    await admin.query("CREATE EXTENSION IF NOT EXISTS pg_buffercache");
    // Unlogged: no WAL to write; read as any table is.
    await admin.query(
      `CREATE UNLOGGED TABLE ${TABLE} AS SELECT g AS id, repeat(md5(g::text), 6) AS payload FROM generate_series(1, 700000) AS g`,
    );
    await admin.query(`VACUUM ANALYZE ${TABLE}`);
    await admin.end();
    ({ base, server } = await startInflightOn(cluster.superuserUrl));
  });

  test.afterAll(async () => {
    if (server) await stopInflight(server);
    removeDebianPg(NAME);
  });

  test("the page shows io_uring in force, async reads in flight, its wait events, and no io workers by design", async ({ page }) => {
    test.setTimeout(180_000);
    const scanner = new pg.Client(cluster.superuserUrl);
    await scanner.connect();
    await scanner.query("SET max_parallel_workers_per_gather = 0");
    let scanning = true;
    let scans = 0;
    const loop = (async () => {
      while (scanning) {
        await evict(scanner, cluster.dataDir);
        await scanner.query(`SELECT count(*) FROM ${TABLE} WHERE payload LIKE '%zz%'`);
        scans++;
      }
    })();
    try {
      await openTarget(page, `${base}/targets/127.0.0.1`);
      await expect(page.getByTestId("setting-io_method")).toHaveAttribute("data-value", "io_uring", { timeout: 30_000 });
      await expect(page.getByTestId("check-io_uring")).toHaveAttribute("data-status", "pass", { timeout: 30_000 });
      const chart = page.getByTestId("inflight-chart");
      // Where none is seen, the failure says what the page said of watching (pg_aios's cadence, the budget) and of the scans.
      await expect
        .poll(async () => Number(await chart.getAttribute("data-max")), { timeout: 60_000, intervals: [500] })
        .toBeGreaterThan(0)
        .catch(async (err: Error) => {
          const said = await Promise.all(
            ["watch-cost", "collection", "findings"].map((id) =>
              page
                .getByTestId(id)
                .first()
                .innerText()
                .catch(() => "-"),
            ),
          );
          throw new Error(`${err.message}\nthe page said: ${said.join(" | ")}; scans done: ${scans}`);
        });
      await expect(page.getByText(/IO:AioIoUring(Submit|Execution)/).first()).toBeVisible({ timeout: 60_000 });
      await expect(page.getByTestId("io-workers-chart")).toContainText(/No io workers, by design: io_method = io_uring/);
      await page.screenshot({ path: "test-results/iouring.png", fullPage: true });
    } finally {
      scanning = false;
      await loop.catch(() => undefined);
      await scanner.end();
    }
  });
});
