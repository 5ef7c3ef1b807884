import type { ChildProcess } from "node:child_process";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { evictFromPageCache } from "../test/support/evict";
import { debianFolder, debianPg, removeDebianPg, type DebianCluster } from "./debian-pg";
import { openTarget, startInflightOn, stopInflight } from "./helpers";

// The pages watching a PostgreSQL 19 (Debian experimental's, in the folder
// scripts/iouring-pg.mjs makes), through a second inflight server of this
// spec's own: 19 has no io_workers, its io worker pool sizes itself between
// io_min_workers and io_max_workers. Where the machine cannot run it, the run
// fails with the reason (IOURING_TESTS=skip: left out, saying so).

const NAME = `e2e19-${process.pid}`;
const TABLE = "public.pool_page";
const SCANS = 8;

debianFolder(19);

test.describe("PostgreSQL 19's io worker pool", () => {
  let cluster: DebianCluster;
  let server: ChildProcess;
  let base: string;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    cluster = debianPg("start", "--major", "19", "--data", NAME, "-c", "io_method=worker");
    const admin = new pg.Client(cluster.superuserUrl);
    await admin.connect();
    // Unlogged: no WAL to write; read as any table is.
    await admin.query(
      `CREATE UNLOGGED TABLE ${TABLE} AS SELECT g AS id, repeat(md5(g::text), 6) AS payload FROM generate_series(1, 800000) AS g`,
    );
    await admin.query(`VACUUM ANALYZE ${TABLE}`);
    await admin.end();
    ({ base, server } = await startInflightOn(cluster.superuserUrl));
  });

  test.afterAll(async () => {
    if (server) await stopInflight(server);
    removeDebianPg(NAME);
  });

  test("the page shows the pool, its bounds and its growth; nothing reads io_workers, NaN or undefined", async ({ page }) => {
    test.setTimeout(180_000);
    // The page is opened and read before the scans start, and photographed
    // after they stop: eight scans on two cores starved Chromium, and CI
    // spent 105 s opening the page and over 60 s on the screenshot.
    await page.goto(base);
    await expect(page.getByTestId("fleet-title")).toHaveText("PostgreSQL 19 asynchronous I/O, live", { timeout: 30_000 });
    await openTarget(page, `${base}/targets/127.0.0.1`);
    await expect(page.getByTestId("setting-io_max_workers")).toHaveAttribute("data-value", "8", { timeout: 30_000 });
    await expect(page.getByTestId("setting-io_min_workers")).toHaveAttribute("data-value", "2");
    // The pool's timings, 19's defaults (ms), shown in human units.
    await expect(page.getByTestId("setting-io_worker_idle_timeout")).toHaveAttribute("data-value", "60000");
    await expect(page.getByTestId("setting-io_worker_idle_timeout")).toContainText("1 min");
    await expect(page.getByTestId("setting-io_worker_launch_interval")).toHaveAttribute("data-value", "100");
    await expect(page.getByTestId("setting-io_worker_launch_interval")).toContainText("100 ms");
    await expect(page.getByTestId("setting-io_workers")).toHaveCount(0);
    await expect(page.getByTestId("workers-pool")).toHaveText(/^io workers \d+ of up to 8 \(pool grows on demand\)$/, { timeout: 30_000 });
    const chart = page.getByTestId("io-workers-chart");
    await expect(chart).toHaveAttribute("data-pool", "true");
    await expect(chart).toContainText("pool (io_min_workers..io_max_workers)");

    const scanners = await Promise.all(
      Array.from({ length: SCANS }, async () => {
        const c = new pg.Client(cluster.superuserUrl);
        await c.connect();
        await c.query("SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = off");
        return c;
      }),
    );
    // Each scan cold from the OS page cache, as in test/pg19.int.test.ts: reads the
    // page cache serves are copied by two workers as fast as they come, nothing queues
    // for them and the pool has no reason to grow (seen here: no launch in 90 s of warm scans).
    let scanning = true;
    const loops = scanners.map(async (c) => {
      while (scanning) {
        await evictFromPageCache(c, cluster.dataDir, TABLE);
        await c.query(`SELECT count(*) FROM ${TABLE}`);
      }
    });
    try {
      // The pool grows under the scans: a launch is marked.
      await expect
        .poll(async () => Number(await chart.getAttribute("data-launched")), { timeout: 90_000, intervals: [500] })
        .toBeGreaterThan(0);
      await expect(page.getByTestId("check-io_workers")).toHaveAttribute("data-status", "pass");
      await expect(page.getByTestId("check-io_workers")).toContainText(/within io_min_workers = 2 to io_max_workers = 8/);
    } finally {
      scanning = false;
      await Promise.all(loops.map((l) => l.catch(() => undefined)));
      await Promise.all(scanners.map((c) => c.end()));
    }
    const text = await page.locator("main").innerText();
    expect(text).not.toMatch(/\bNaN\b|\bundefined\b|io_workers\b/);
    await page.screenshot({ path: "test-results/pg19.png", fullPage: true });
  });
});
