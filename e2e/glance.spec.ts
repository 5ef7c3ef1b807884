import { expect, test } from "@playwright/test";
import { admin, coldRuns, reload, SCAN, TABLE, watch, type Admin } from "./glance-helpers";
import { DEMO_IO, openTarget, restoreDemo } from "./helpers";

// Issue 40, "at a glance": on real workloads, everything above the first
// chart (the header included) holds at most 160 words with nothing opened,
// the findings and verdicts at most 80 of them; each running query has its
// verdict (what it does now, how far, the lever), the one with the most time
// left first (glance-helpers.ts). Sync after a restart is restart.spec.ts's.
// The demo is left with io_method worker, io_workers 3 and no setting of
// ALTER SYSTEM's of its own; a pending flag PostgreSQL keeps after an undone
// change goes with restart.spec.ts's restart.

test.describe.configure({ mode: "serial" });

let a: Admin;
test.beforeAll(async () => {
  a = await admin();
});
test.afterAll(async ({ request }) => {
  await reload(a, "ALTER SYSTEM RESET effective_io_concurrency").catch(() => undefined);
  await reload(a, "ALTER SYSTEM RESET io_workers").catch(() => undefined);
  await reload(a, "ALTER SYSTEM RESET io_method").catch(() => undefined);
  await a.client.end().catch(() => undefined);
  await restoreDemo(request);
});

test("a cold scan, alone: its verdict, and the first screen read in few words", async ({ page }) => {
  test.setTimeout(120_000);
  await openTarget(page);
  const looks = await watch(page, "cold-scan", coldRuns(a, 1, SCAN));
  expect(looks.some((l) => l.rows.some((r) => /%/.test(r.progress)))).toBe(true);
});

test("index lookups: synchronous reads, not an io_method lever", async ({ page }) => {
  test.setTimeout(120_000);
  await openTarget(page);
  const { rows } = await a.client.query<{ n: string }>(`SELECT max(id)::text AS n FROM ${TABLE}`);
  const n = Number(rows[0].n);
  const sql = `SELECT sum(r.reading) FROM generate_series(1, 40000) g CROSS JOIN LATERAL (SELECT reading FROM ${TABLE} WHERE id = (g::bigint * 7919) % ${n} + 1) r`;
  const looks = await watch(page, "index-lookups", coldRuns(a, 1, sql, ["SET enable_seqscan = off", "SET enable_bitmapscan = off"]));
  const lookups = looks.flatMap((l) => l.rows).filter((r) => r.rule === "sync_reads");
  for (const r of lookups) expect(r.lever).toBe("the plan or index, not an I/O setting");
});

test("four cold scans behind one io worker: the cause said once, naming the queries it holds back", async ({ page }) => {
  test.setTimeout(180_000);
  await openTarget(page);
  await reload(a, "ALTER SYSTEM SET io_workers = 1");
  await expect(page.getByTestId("setting-io_workers")).toHaveAttribute("data-value", "1", { timeout: 30_000 });
  const scans = coldRuns(a, 4, SCAN);
  const watching = watch(page, "one-io-worker", scans);
  // The server's line says it once, with the lever and how many queries it holds back;
  // its lever and its words read in one page task (the line goes when the queue drains).
  const cause = () =>
    page.evaluate(() => {
      const line = document.querySelector('[data-testid="finding"][data-rule="workers_queue"][data-run=""]');
      const text = (id: string) => line?.querySelector<HTMLElement>(`[data-testid="${id}"]`)?.innerText ?? "";
      return { lever: text("finding-lever"), glance: text("finding-glance") };
    });
  const lever = "raise io_workers (now 1)";
  let held = "";
  await expect
    .poll(
      async () => {
        const seen = await cause();
        if (seen.lever === lever) held = seen.glance;
        return seen.lever;
      },
      { timeout: 60_000, intervals: [150] },
    )
    .toBe(lever);
  await watching;
  expect(held).toMatch(/holds back \d quer/);
  await reload(a, "ALTER SYSTEM RESET io_workers");
  await expect(page.getByTestId("setting-io_workers")).toHaveAttribute("data-value", String(DEMO_IO.io_workers), { timeout: 30_000 });
});

test("effective_io_concurrency = 1 on a cold scan: the verdict's lever", async ({ page }) => {
  test.setTimeout(120_000);
  await openTarget(page);
  await reload(a, "ALTER SYSTEM SET effective_io_concurrency = 1");
  await expect(page.getByTestId("setting-effective_io_concurrency")).toHaveAttribute("data-value", "1", { timeout: 30_000 });
  const looks = await watch(page, "eic-1", coldRuns(a, 1, SCAN));
  for (const r of looks.flatMap((l) => l.rows).filter((x) => x.rule === "readahead_depth"))
    expect(r.lever).toBe("raise effective_io_concurrency (now 1)");
  await reload(a, "ALTER SYSTEM RESET effective_io_concurrency");
});

test("io_method = sync waiting for a restart: named once, in few words, beside the running scan", async ({ page }) => {
  test.setTimeout(120_000);
  await openTarget(page);
  await reload(a, "ALTER SYSTEM SET io_method = sync");
  const pending = page.locator('[data-testid="finding"][data-rule="restart_pending"]');
  await expect(pending.getByTestId("finding-glance")).toContainText("Waiting for a restart: io_method sync", { timeout: 30_000 });
  await watch(page, "pending-sync", coldRuns(a, 1, SCAN));
  // Undone: PostgreSQL may keep pending_restart set until a restart (restart.spec.ts, after this one, restarts the demo).
  await reload(a, "ALTER SYSTEM RESET io_method");
});
