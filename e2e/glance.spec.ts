import { expect, test, type Page } from "@playwright/test";
import pg from "pg";
import { DEMO_IO, demoCluster, dropFromOsCache, firstScreen, openTarget, restoreDemo } from "./helpers";

// Issue 40, "at a glance": on real workloads, everything above the first
// chart (the header included) holds at most 160 words with nothing opened,
// the findings and verdicts at most 80 of them; each running query has its
// verdict (what it does now, how far, the lever), the one with the most time
// left first. The demo is left as it was found: io_method worker, io_workers
// 3, no setting of ALTER SYSTEM's of its own left, nothing pending.

const TABLE = "public.readings";
const MAX_WORDS = 160;
const MAX_FINDING_WORDS = 80;

type Admin = { client: pg.Client; dataDir: string; connection: pg.ClientConfig };

async function admin(): Promise<Admin> {
  const cluster = demoCluster();
  const connection = { host: "127.0.0.1", port: cluster.port, database: "inflight_demo", user: "postgres", password: cluster.superuserPassword };
  const client = new pg.Client({ ...connection, application_name: "glance-spec-admin" });
  await client.connect();
  return { client, dataDir: cluster.dataDir, connection };
}

async function reload(a: Admin, sql: string): Promise<void> {
  await a.client.query(sql);
  await a.client.query("SELECT pg_reload_conf()");
}

/** Runs `sql` on `n` sessions of their own, the table cold first; resolves when all end. */
async function coldRuns(a: Admin, n: number, sql: string, setup: string[] = []): Promise<number[]> {
  const clients = await Promise.all(
    Array.from({ length: n }, async () => {
      const c = new pg.Client({ ...a.connection, application_name: "glance-spec" });
      await c.connect();
      for (const s of ["SET max_parallel_workers_per_gather = 0", "SET synchronize_seqscans = off", ...setup]) await c.query(s);
      return c;
    }),
  );
  await a.client.query("CHECKPOINT");
  await dropFromOsCache(a.client, a.dataDir, TABLE);
  const t0 = Date.now();
  try {
    return await Promise.all(clients.map(async (c) => (await c.query(sql), Date.now() - t0)));
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

interface Look {
  above: number;
  findings: number;
  text: string;
  rows: { run: string; rule: string; now: string; progress: string; lever: string; leftMs: number | null; evidence: string }[];
}

async function look(page: Page): Promise<Look> {
  const screen = await firstScreen(page);
  const rows = await page.locator('[data-testid="verdicts"] [data-testid="finding"]').evaluateAll((els) =>
    els.map((el) => {
      const cell = (id: string) => el.querySelector<HTMLElement>(`[data-testid="${id}"]`)?.innerText.trim() ?? "";
      const left = (el as HTMLElement).dataset.leftMs;
      return { run: (el as HTMLElement).dataset.run ?? "", rule: (el as HTMLElement).dataset.rule ?? "", now: cell("verdict-now"), progress: cell("verdict-progress"), lever: cell("finding-lever"), leftMs: left ? Number(left) : null, evidence: el.querySelector('[data-testid="finding-evidence"]')?.textContent ?? "" };
    }),
  );
  return { ...screen, rows };
}

/**
 * Looks at the first screen every 250 ms while `work` runs, and checks each
 * look that has a running query's verdict: the word counts, every verdict's
 * cells, and the most time left first. Returns the looks with verdicts.
 */
async function watch(page: Page, name: string, work: Promise<unknown>): Promise<Look[]> {
  let done = false;
  const finished = work.finally(() => (done = true));
  const looks: Look[] = [];
  while (!done) {
    const l = await look(page);
    if (l.rows.length) looks.push(l);
    await page.waitForTimeout(250);
  }
  await finished;
  expect(looks.length, `${name}: no running query's verdict was on the page while it ran`).toBeGreaterThan(0);
  for (const l of looks) {
    expect(l.above, `${name}: words above the first chart: ${l.text}`).toBeLessThanOrEqual(MAX_WORDS);
    expect(l.findings, `${name}: words of the findings: ${l.text}`).toBeLessThanOrEqual(MAX_FINDING_WORDS);
    for (const r of l.rows) {
      expect(r.now, `${name}: what ${r.run} does now`).not.toBe("");
      expect(r.progress, `${name}: how far ${r.run} has got`).not.toBe("");
      expect(r.lever, `${name}: the lever of ${r.run} (or the cause above that holds it back)`).not.toBe("");
    }
    const known = l.rows.filter((r) => r.leftMs !== null).map((r) => r.leftMs!);
    if (known.length > 1) expect(l.rows[0].leftMs, `${name}: the first verdict has the most time left`).toBe(Math.max(...known));
  }
  await page.screenshot({ path: `test-results/glance-${name}.png` });
  return looks;
}

test.describe.configure({ mode: "serial" });

let a: Admin;
test.beforeAll(async () => {
  a = await admin();
});
test.afterAll(async ({ request }) => {
  await reload(a, "ALTER SYSTEM RESET effective_io_concurrency").catch(() => undefined);
  await reload(a, "ALTER SYSTEM RESET io_workers").catch(() => undefined);
  await a.client.end().catch(() => undefined);
  await restoreDemo(request);
});

test("a cold scan, alone: its verdict, and the first screen read in few words", async ({ page }) => {
  test.setTimeout(120_000);
  await openTarget(page);
  const looks = await watch(page, "cold-scan", coldRuns(a, 1, `SELECT count(*), sum(length(payload)) FROM ${TABLE}`));
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
  const held: string[] = [];
  const scans = coldRuns(a, 4, `SELECT count(*), sum(length(payload)) FROM ${TABLE}`);
  const watching = watch(page, "one-io-worker", scans);
  // The server's line says it once, with the lever and how many queries it holds back.
  const cause = page.locator('[data-testid="finding"][data-rule="workers_queue"][data-run=""]');
  await expect(cause.getByTestId("finding-lever")).toHaveText("raise io_workers (now 1)", { timeout: 60_000 });
  held.push(await cause.getByTestId("finding-glance").innerText());
  await watching;
  expect(held[0]).toMatch(/holds back \d quer/);
  await reload(a, "ALTER SYSTEM RESET io_workers");
  await expect(page.getByTestId("setting-io_workers")).toHaveAttribute("data-value", String(DEMO_IO.io_workers), { timeout: 30_000 });
});

test("effective_io_concurrency = 1 on a cold scan: the verdict's lever", async ({ page }) => {
  test.setTimeout(120_000);
  await openTarget(page);
  await reload(a, "ALTER SYSTEM SET effective_io_concurrency = 1");
  await expect(page.getByTestId("setting-effective_io_concurrency")).toHaveAttribute("data-value", "1", { timeout: 30_000 });
  const looks = await watch(page, "eic-1", coldRuns(a, 1, `SELECT count(*), sum(length(payload)) FROM ${TABLE}`));
  for (const r of looks.flatMap((l) => l.rows).filter((x) => x.rule === "readahead_depth")) expect(r.lever).toBe("raise effective_io_concurrency (now 1)");
  await reload(a, "ALTER SYSTEM RESET effective_io_concurrency");
});

test("io_method = sync pending, then in force after the restart: few words, and no unmeasured advice said as a fact", async ({ page, request }) => {
  test.setTimeout(240_000);
  await openTarget(page);
  await reload(a, "ALTER SYSTEM SET io_method = sync");
  await expect(page.locator('[data-testid="finding"][data-rule="restart_pending"]')).toBeVisible({ timeout: 30_000 });
  await watch(page, "pending-sync", coldRuns(a, 1, `SELECT count(*), sum(length(payload)) FROM ${TABLE}`));
  // The restart brings sync in force (and clears the pending flag).
  const res = await request.get(`/api/targets/demo/window?from=${Date.now()}`);
  const post = await request.post("/api/targets/demo/demo", { data: { io_method: "sync", io_workers: DEMO_IO.io_workers }, headers: { Origin: new URL(res.url()).origin }, timeout: 90_000 });
  expect(post.ok(), await post.text()).toBe(true);
  await a.client.end().catch(() => undefined);
  await expect(page.getByTestId("setting-io_method")).toHaveAttribute("data-value", "sync", { timeout: 60_000 });
  await expect(page.getByTestId("target-status")).toHaveAttribute("data-status", "up", { timeout: 60_000 });
  a = await admin();
  await watch(page, "sync", coldRuns(a, 1, `SELECT count(*), sum(length(payload)) FROM ${TABLE}`));
  // A second run under sync: the window now holds the statement under both io_methods (the scans
  // above ran it under worker), and the advice cites what they took, whichever way it goes.
  const looks = await watch(page, "sync-again", coldRuns(a, 1, `SELECT count(*), sum(length(payload)) FROM ${TABLE}`));
  const advice = looks.flatMap((l) => l.rows).filter((x) => x.rule === "io_method_sync");
  expect(advice.length, "a verdict on the scan under io_method = sync").toBeGreaterThan(0);
  for (const r of advice) {
    expect(r.evidence).toMatch(/under worker: [\d.-]+ s, \d+ runs?; under sync: [\d.-]+ s, \d+ runs?/);
    expect(["io_method = worker: faster here", "not io_method: worker was no faster here"]).toContain(r.lever);
  }
});
