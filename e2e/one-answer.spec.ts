import { expect, test } from "@playwright/test";
import { admin, reload } from "./glance-helpers";
import { openTarget } from "./helpers";

// Issue 19, "one answer, the same everywhere": the finding about a running
// scan and that scan's row in the runs table quote one moment, so a figure
// read twice on one screen is the same number: elapsed, share scanned, time
// left and rate, and the sampled read wait. Read in one task of the page
// (no render between the two reads), many times while the scan runs.

const SCAN = 'SELECT count(*), avg(reading) FROM "public"."readings"';

interface Pair {
  finding: string;
  elapsed: string;
  progress: string;
  eta: string;
  wait: string;
}

test("a running scan's finding and its row give the same figures, read at the same moment", async ({ page }) => {
  test.setTimeout(240_000);
  await openTarget(page);
  const pairs: Pair[] = [];
  // Bounded: pairs from at least 5 distinct moments of running scans.
  await expect
    .poll(
      async () => {
        const pair = await page.evaluate((scan) => {
          for (const el of document.querySelectorAll<HTMLElement>('[data-testid="finding"]')) {
            const run = el.dataset.run;
            const evidence = el.querySelector<HTMLElement>('[data-testid="finding-evidence"]')?.textContent ?? "";
            if (!run || el.dataset.rule === "too_short" || !evidence.includes(scan) || !/% scanned/.test(evidence)) continue;
            const row = document.querySelector<HTMLElement>(
              `[data-testid="query-row"][data-run="${CSS.escape(run)}"][data-running="true"]`,
            );
            if (!row) return null;
            const text = (id: string) => row.querySelector<HTMLElement>(`[data-testid="${id}"]`)?.innerText.trim() ?? "";
            return {
              finding: evidence,
              elapsed: text("run-elapsed"),
              progress: text("run-progress"),
              eta: text("run-eta"),
              wait: text("read-wait"),
            };
          }
          return null;
        }, SCAN);
        if (pair && !pairs.some((p) => p.finding === pair.finding)) pairs.push(pair);
        return pairs.length;
      },
      { timeout: 180_000, intervals: [100], message: "a running scan's finding beside its row, at 5 moments" },
    )
    .toBeGreaterThanOrEqual(5);

  for (const p of pairs) {
    // "…on public.readings, 2.8 s, 52% scanned (about 2.7 s left at 460 MB/s); waiting on reads in 18 of 34 samples (53%: async 18, synchronous 0)…"
    const m =
      /, ([\d.]+ (?:ms|s|min)(?: [\d.]+ s)?), ((?:<1|\d+)%) scanned(?: \(([^)]*)\))?; waiting on reads in \d+ of \d+ samples? \(((?:<1|\d+)%)/.exec(
        p.finding,
      );
    expect(m, p.finding).not.toBeNull();
    const [, elapsed, scanned, left, waiting] = m!;
    expect(p.elapsed, p.finding).toBe(elapsed);
    expect(p.progress, p.finding).toBe(`${scanned} of public.readings scanned`);
    if (left) expect(p.eta, p.finding).toBe(left);
    expect(p.wait.split("\n")[0], p.finding).toBe(waiting ?? "0%");
  }
});

// The header's "active backends" is of the same moment as the runs listed:
// a client backend's row still running never stands under a header that
// counts no client backend running a statement (the header read the newest
// tick, the rows the last moment: one look at a scan's end showed "0 active
// backends" above "Slowest running"). Autovacuum's runs are listed too but
// are not client backends, which is all the header counts. Looked at every
// 100 ms across several scan ends.
test("the header never counts fewer active backends than the client backends' runs listed as running", async ({ page }) => {
  test.setTimeout(240_000);
  await openTarget(page);
  // Each look also keeps the moment of each side: the header's tick and the runs' asOf.
  const looks: { active: number; running: number; tick: number; runsAsOf: number }[] = [];
  let ends = 0;
  await expect
    .poll(
      async () => {
        const look = await page.evaluate(() => {
          const header = document.querySelector<HTMLElement>('[data-testid="now-active"]');
          return {
            active: Number(header?.innerText ?? NaN),
            running: document.querySelectorAll('[data-testid="query-row"][data-running="true"][data-backend-type="client backend"]').length,
            tick: Number(header?.dataset.t ?? NaN),
            runsAsOf: Number(document.querySelector<HTMLElement>('[data-testid="queries-table"]')?.dataset.asOf ?? NaN),
          };
        });
        if (Number.isNaN(look.active)) return ends;
        if (looks.length && looks[looks.length - 1].running > 0 && look.running === 0) ends++;
        looks.push(look);
        return ends;
      },
      { timeout: 180_000, intervals: [100], message: "three runs seen ending" },
    )
    .toBeGreaterThanOrEqual(3);
  // The header's tick is of the runs' moment or before it, never after (unless no moment came for LATEST_STALE_MS).
  const ahead = looks.filter((l) => l.tick > l.runsAsOf && l.tick - l.runsAsOf <= 2000);
  expect(ahead, `${ahead.length} of ${looks.length} looks showed a header tick newer than the runs' moment`).toEqual([]);
  const behind = looks.filter((l) => l.running > l.active);
  expect(
    behind,
    `${behind.length} of ${looks.length} looks listed more running client-backend runs than the header's active backends`,
  ).toEqual([]);
  expect(looks.some((l) => l.running > 0)).toBe(true);
});

// Reads in flight under "0 running queries" had no owner on the page when
// autovacuum read them (the header counts client backends only): the header
// names what runs beside the queries. An autovacuum of a table of the test's
// own, seen running by the server's pg_stat_activity, is named in the header
// while its run is listed as running.
test("an autovacuum running beside the queries is named in the header while the server runs it", async ({ page }) => {
  test.setTimeout(120_000);
  const a = await admin();
  const TABLE = "inflight_e2e_housekeeping";
  try {
    // The test's own statements stay out of pg_stat_statements: its INSERT would be the window's
    // "reads only from shared buffers" line on the pages of the tests after it.
    await a.client.query("SET pg_stat_statements.track = 'none'");
    await openTarget(page);
    await a.client.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await a.client.query(`CREATE TABLE ${TABLE} (id int, pad text) WITH (autovacuum_enabled = off)`);
    // 13 MB, every row deleted, the pages written out: its vacuum dirties each of its 1,600 pages again,
    // and at a cost delay of 20 ms takes about 4 s (3.9 s three times here). Small, so that the tests
    // after this one find the demo as it was (a million rows here put the next one over the budget).
    await a.client.query(`INSERT INTO ${TABLE} SELECT g, repeat('x', 100) FROM generate_series(1, 100000) g`);
    await a.client.query(`DELETE FROM ${TABLE}`);
    await a.client.query("CHECKPOINT");
    await reload(a, "ALTER SYSTEM SET autovacuum_naptime = 1");
    await a.client.query(
      `ALTER TABLE ${TABLE} SET (autovacuum_enabled = on, autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_cost_delay = 20)`,
    );
    await expect
      .poll(
        async () => {
          const { rows } = await a.client.query(
            `SELECT 1 FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' AND state = 'active' AND query LIKE '%${TABLE}%'`,
          );
          const page_ = await page.evaluate((table) => {
            const row = [...document.querySelectorAll<HTMLElement>('[data-testid="query-row"][data-running="true"]')].find(
              (r) => r.dataset.backendType === "autovacuum worker" && (r.textContent ?? "").includes(table),
            );
            return { beside: document.querySelector('[data-testid="now-beside"]')?.textContent ?? "", listed: row !== undefined };
          }, TABLE);
          return rows.length > 0 && page_.listed && /^\d+ autovacuum/.test(page_.beside);
        },
        { timeout: 60_000, intervals: [100], message: "the table's autovacuum, running on the server, listed and named in the header" },
      )
      .toBe(true);
  } finally {
    await reload(a, "ALTER SYSTEM RESET autovacuum_naptime").catch(() => undefined);
    await a.client.query(`DROP TABLE IF EXISTS ${TABLE}`).catch(() => undefined);
    await a.client.end().catch(() => undefined);
  }
});
