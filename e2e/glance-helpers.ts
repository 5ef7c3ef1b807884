import { expect, type Page } from "@playwright/test";
import pg from "pg";
import { demoCluster, dropFromOsCache, firstScreen } from "./helpers";

// Issue 40's measure of the first screen on real workloads, shared by the
// specs that drive them (glance.spec.ts; restart.spec.ts, under sync): what
// a person reads above the first chart, and each running query's verdict.

export const TABLE = "public.readings";
/** A cold scan of the whole table that also measures each row's payload: a few seconds long, whatever the disk. */
export const SCAN = `SELECT count(*), sum(length(payload)) FROM ${TABLE}`;
/** A cold scan that waits on its reads more than it computes: about a second under worker here, longer under sync. */
export const READ_SCAN = `SELECT count(*), avg(reading) FROM ${TABLE}`;
const MAX_WORDS = 160;
const MAX_FINDING_WORDS = 80;

export type Admin = { client: pg.Client; dataDir: string; connection: pg.ClientConfig };

export async function admin(): Promise<Admin> {
  const cluster = demoCluster();
  const connection = {
    host: "127.0.0.1",
    port: cluster.port,
    database: "inflight_demo",
    user: "postgres",
    password: cluster.superuserPassword,
  };
  const client = new pg.Client({ ...connection, application_name: "glance-spec-admin" });
  await client.connect();
  return { client, dataDir: cluster.dataDir, connection };
}

export async function reload(a: Admin, sql: string): Promise<void> {
  await a.client.query(sql);
  await a.client.query("SELECT pg_reload_conf()");
}

/** Runs `sql` on `n` sessions of their own, the table cold first; resolves when all end. */
export async function coldRuns(a: Admin, n: number, sql: string, setup: string[] = []): Promise<number[]> {
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

export interface Look {
  above: number;
  findings: number;
  text: string;
  rows: { run: string; rule: string; now: string; progress: string; lever: string; leftMs: number | null; evidence: string }[];
}

export async function look(page: Page): Promise<Look> {
  const screen = await firstScreen(page);
  // Found and read in one task of the page, so the order and the figures are of one render: a locator's
  // evaluateAll finds the rows and reads them in two round trips, and a tick between them re-orders the rows
  // under their old order (the last stop's CI: 13593, 11490, 13599).
  const rows = await page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="verdicts"] [data-testid="finding"]')].map((el) => {
      const cell = (id: string) => el.querySelector<HTMLElement>(`[data-testid="${id}"]`)?.innerText.trim() ?? "";
      const left = (el as HTMLElement).dataset.leftMs;
      return {
        run: (el as HTMLElement).dataset.run ?? "",
        rule: (el as HTMLElement).dataset.rule ?? "",
        now: cell("verdict-now"),
        progress: cell("verdict-progress"),
        lever: cell("finding-lever"),
        leftMs: left ? Number(left) : null,
        evidence: el.querySelector('[data-testid="finding-evidence"]')?.textContent ?? "",
      };
    }),
  );
  return { ...screen, rows };
}

/**
 * Looks at the first screen every 250 ms while `work` runs, and checks each
 * look that has a running query's verdict: the word counts, every verdict's
 * cells, and the most time left first. Returns the looks with verdicts; with
 * `needVerdict`, there must be one.
 */
export async function watch(page: Page, name: string, work: Promise<unknown>, needVerdict = true): Promise<Look[]> {
  let done = false;
  const finished = work.finally(() => (done = true));
  const looks: Look[] = [];
  let most = 0;
  while (!done) {
    const l = await look(page);
    if (l.rows.length) looks.push(l);
    // The picture of the case (docs/page.md): the look with the most running queries, at its first.
    if (l.rows.length > most && !done) {
      most = l.rows.length;
      await page.screenshot({ path: `test-results/glance-${name}.png` });
    }
    await page.waitForTimeout(250);
  }
  await finished;
  if (needVerdict) expect(looks.length, `${name}: no running query's verdict was on the page while it ran`).toBeGreaterThan(0);
  for (const l of looks) {
    expect(l.above, `${name}: words above the first chart: ${l.text}`).toBeLessThanOrEqual(MAX_WORDS);
    expect(l.findings, `${name}: words of the findings: ${l.text}`).toBeLessThanOrEqual(MAX_FINDING_WORDS);
    for (const r of l.rows) {
      expect(r.now, `${name}: what ${r.run} does now`).not.toBe("");
      expect(r.progress, `${name}: how far ${r.run} has got`).not.toBe("");
      expect(r.lever, `${name}: the lever of ${r.run} (or the cause above that holds it back)`).not.toBe("");
    }
    const known = l.rows.filter((r) => r.leftMs !== null).map((r) => r.leftMs!);
    if (known.length > 1)
      expect(
        l.rows[0].leftMs,
        `${name}: the first verdict has the most time left: ${JSON.stringify(l.rows.map((r) => [r.run, r.leftMs]))}`,
      ).toBe(Math.max(...known));
  }
  return looks;
}
