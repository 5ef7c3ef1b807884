import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { demoCluster, openTarget } from "./helpers";

// Query text comes from the monitored server: it is shown as text, never
// parsed as HTML. The demo cannot be made to run a hostile query from here,
// so this checks the rendering itself: every query text element holds one
// text node and no element, and the page's CSP forbids eval.

test("query text is rendered as text, and the page's CSP has a nonce for scripts: no unsafe-inline, no unsafe-eval", async ({ page }) => {
  test.setTimeout(120_000);
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const response = await page.goto("/targets/demo");
  const csp = response?.headers()["content-security-policy"] ?? "";
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{20,}'(;|$)/);
  expect(csp).not.toContain("unsafe-eval");
  const scriptSrc = /script-src [^;]*/.exec(csp)![0];
  expect(scriptSrc).not.toContain("unsafe-inline");
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  expect(response?.headers()["x-content-type-options"]).toBe("nosniff");

  await openTarget(page);
  const texts = page.getByTestId("query-text");
  await expect.poll(() => texts.count(), { timeout: 60_000 }).toBeGreaterThan(0);
  const cells = await texts.evaluateAll((els) =>
    els.map((e) => ({
      elements: e.children.length,
      html: e.innerHTML,
      escaped: (e.textContent ?? "")
        .replace(/&/g, "&amp;")
        .replace(/</g, "&lt;")
        .replace(/>/g, "&gt;")
        .replace(/\u00a0/g, "&nbsp;"),
    })),
  );
  for (const cell of cells) {
    expect(cell.elements).toBe(0);
    expect(cell.html).toBe(cell.escaped);
  }
  // The demo's own queries have quotes and operators that must survive as text.
  await expect(texts.filter({ hasText: "'%zz%'" }).first()).toBeAttached({ timeout: 60_000 });
  // Every inline script of the page carries its request's nonce (one for all, none empty); none was refused.
  const nonces = await page.locator("script:not([src])").evaluateAll((els) => els.map((e) => (e as HTMLScriptElement).nonce));
  expect(nonces.length).toBeGreaterThan(0);
  expect(new Set(nonces).size).toBe(1);
  expect(nonces[0].length).toBeGreaterThanOrEqual(20);
  expect(violations).toEqual([]);
  expect(dialogs).toEqual([]);
});

test("hostile view parameters in a link are ignored, not rendered", async ({ page }) => {
  test.setTimeout(120_000);
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await openTarget(
    page,
    `/targets/demo?view=<img src=x onerror=alert(1)>&from=1&to=x&run=${encodeURIComponent('"><script>alert(2)</script>')}`,
  );
  await expect(page.getByTestId("frozen-bar")).toHaveCount(0);
  await expect(page.getByTestId("run-timeline")).toHaveCount(0);
  // The page rewrites its URL with what it understood: the default view only.
  await expect(page).toHaveURL(/\/targets\/demo\?view=5m$/);
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  expect(dialogs).toEqual([]);
});

// Hostile names made for real on the demo cluster: a role and a table whose
// names are HTML, and a query whose text is, run by that role over that
// table (cold, so that its reads are seen in flight and the table named).
// The page shows them as text: no element from them, no script run.
const ROLE = `<img src=x onerror=alert("role")>`;
const TABLE = `<script>alert("table")</script>`;
const QUERY_MARK = `<script>alert("query")</script><img src=x onerror=alert(4)>`;
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** How long cold scans of the hostile table go on until a sample catches its reads (each ~1 s). */
const SCANS_MS = 60_000;

test("a hostile role, table and query text are rendered as text, and nothing runs", async ({ page }) => {
  test.setTimeout(240_000);
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const cluster = demoCluster();
  const connection = { host: "127.0.0.1", port: cluster.port, database: "inflight_demo" };
  const admin = new pg.Client({ ...connection, user: "postgres", password: cluster.superuserPassword });
  await admin.connect();
  try {
    await admin.query(`DROP TABLE IF EXISTS public.${ident(TABLE)}`);
    await admin.query(`DROP ROLE IF EXISTS ${ident(ROLE)}`);
    await admin.query(`CREATE ROLE ${ident(ROLE)} LOGIN PASSWORD 'hostile-pw-0123'`);
    await admin.query(`CREATE TABLE public.${ident(TABLE)} AS SELECT g AS id, repeat('x', 1000) AS pad FROM generate_series(1, 200000) g`);
    await admin.query(`GRANT SELECT ON public.${ident(TABLE)} TO ${ident(ROLE)}`);
    await admin.query("CHECKPOINT");
    const { rows } = await admin.query<{ path: string }>("SELECT pg_relation_filepath($1::regclass) AS path", [`public.${ident(TABLE)}`]);
    const base = path.join(cluster.dataDir, rows[0].path);

    await openTarget(page);
    // The longest runs first (the hostile one sleeps), all of them listed.
    await page.getByRole("button", { name: "elapsed" }).click();
    const hostile = new pg.Client({ ...connection, user: ROLE, password: "hostile-pw-0123", application_name: "hostile" });
    await hostile.connect();
    let scans = 0;
    const texts = page.getByTestId("query-text").filter({ hasText: 'alert("query")' });
    // Is a hostile run seen reading the table asynchronously (then the table is named)?
    const named = async () => {
      const { queries } = (await (await page.request.get("/api/targets/demo/window")).json()) as {
        queries: { query: string; relations: unknown[] }[];
      };
      return queries.some((q) => q.query.includes(QUERY_MARK) && q.relations.length > 0);
    };
    try {
      // A backend of a role not known yet has inflight read the role names (at most every 10 s):
      // the runs that begin after that carry the role's name.
      await hostile.query("SELECT pg_sleep(11)");
      // Cold scans, until one is seen reading the table: pg_aios is read less often than every
      // sample where it is costly (INFLIGHT_BUDGET), and a scan may fall between two reads.
      // Bounded: past SCANS_MS the test fails below, saying that the table's name went unchecked.
      const until = Date.now() + SCANS_MS;
      for (let i = 0; !(i >= 2 && (await named())) && Date.now() < until; i++) {
        const dd = spawnSync("dd", [`if=${base}`, "iflag=nocache", "count=0"], { encoding: "utf8" });
        expect(dd.status, dd.stderr).toBe(0);
        await hostile.query(`/* ${QUERY_MARK} */ SELECT count(*), max(length(pad)), pg_sleep(0.5) FROM public.${ident(TABLE)}`);
        scans = i + 1;
      }
    } finally {
      await hostile.end();
    }
    const all = page.getByTestId("queries-show-all");
    if ((await all.count()) && (await all.getAttribute("aria-pressed")) !== "true") await all.click();
    await expect(texts.first()).toBeAttached({ timeout: 30_000 });
    const row = page.getByTestId("query-row").filter({ has: texts.first() });
    // The role, in the row's title (as an attribute's text).
    const title = (await row.first().locator("td").first().getAttribute("title")) ?? "";
    expect(title).toContain(ROLE);
    for (const cell of await texts.evaluateAll((els) => els.map((e) => ({ elements: e.children.length, text: e.textContent ?? "" })))) {
      expect(cell.elements).toBe(0);
      expect(cell.text).toContain(QUERY_MARK);
    }
    // The table, where a run's relations are named (a sample caught its reads in flight).
    expect(
      await named(),
      `no sample caught the hostile table's reads in flight in ${scans} cold scans: its name's escaping went unchecked`,
    ).toBe(true);
    const reads = page
      .getByTestId("query-row")
      .filter({ has: texts })
      .getByText(/^reads /);
    await expect(reads.filter({ hasText: TABLE }).first()).toBeAttached({ timeout: 10_000 });
    expect((await reads.evaluateAll((els) => els.map((e) => e.children.length))).every((n) => n === 0)).toBe(true);
    await expect(page.locator('img[src="x"]')).toHaveCount(0);
    expect(await page.locator("script").evaluateAll((els) => els.filter((e) => (e.textContent ?? "").includes("alert(")).length)).toBe(0);
    expect(dialogs).toEqual([]);
  } finally {
    await admin.query(`DROP TABLE IF EXISTS public.${ident(TABLE)}`).catch(() => undefined);
    await admin.query(`DROP ROLE IF EXISTS ${ident(ROLE)}`).catch(() => undefined);
    await admin.end();
  }
});
