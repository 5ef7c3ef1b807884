import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import type pg from "pg";

// Shared by the specs: the demo target's page, loaded and sampling.

/** Opens a target page (or a link into one) and waits until the target is up and the stream live. */
export async function openTarget(page: Page, path = "/targets/demo"): Promise<void> {
  await page.goto(path);
  await expect(page.getByTestId("target-status")).toHaveAttribute("data-status", "up", { timeout: 180_000 });
  await expect(page.getByTestId("stream-state")).toHaveAttribute("data-state", "live", { timeout: 30_000 });
}

/** The demo as the specs find it: io_method worker, io_workers 3. */
export const DEMO_IO = { io_method: "worker", io_workers: 3 } as const;

/**
 * Puts the demo back to DEMO_IO when it is not (a spec that restarts it, in
 * its afterAll, or before a test that needs it so). As the page does, with
 * its own Origin: the server refuses a state change without one, and a
 * refusal here fails loudly rather than leaving the demo in sync for the
 * next spec.
 */
export async function restoreDemo(request: APIRequestContext): Promise<void> {
  const res = await request.get(`/api/targets/demo/window?from=${Date.now()}`);
  const settings = res.ok() ? (await res.json()).settings : null;
  if (settings?.io_method?.setting === DEMO_IO.io_method && settings?.io_workers?.setting === String(DEMO_IO.io_workers)) return;
  const post = await request.post("/api/targets/demo/demo", {
    data: DEMO_IO,
    headers: { Origin: new URL(res.url()).origin },
    timeout: 60_000,
  });
  expect(post.ok(), `restoring the demo: ${post.status()} ${await post.text()}`).toBe(true);
}

/** The rows of the query table whose text contains `text`, with a given verdict. */
export function runRows(page: Page, verdict: "async" | "sync" | "cpu", text: string): Locator {
  return page.locator(`[data-testid="query-row"][data-verdict="${verdict}"]`, { hasText: text });
}

/** Opens every group of sub-second runs in the query table (they are grouped by statement). */
export async function expandRunGroups(page: Page): Promise<void> {
  // One at a time, the first closed one each time: opening a group changes which are closed.
  const closed = page.locator('[data-testid="run-group"] button[aria-expanded="false"]');
  for (let i = 0; i < 20 && (await closed.count()) > 0; i++)
    await closed
      .first()
      .click({ timeout: 2000 })
      .catch(() => {});
}

/**
 * Drags across the in-flight chart's plot area from time `from` to time `to`
 * (server ms), placed with the chart's own domain (data-from/data-to) and
 * its pointer surface, which spans the plot area exactly.
 */
export async function dragOnInflightChart(page: Page, from: number, to: number): Promise<void> {
  const chart = page.getByTestId("inflight-chart");
  await chart.scrollIntoViewIfNeeded();
  const d0 = Number(await chart.getAttribute("data-from"));
  const d1 = Number(await chart.getAttribute("data-to"));
  const grid = await chart.getByTestId("chart-pointer").boundingBox();
  if (!grid) throw new Error("the in-flight chart has no plot area");
  const x = (t: number) => grid.x + Math.min(1, Math.max(0, (t - d0) / (d1 - d0))) * (grid.width - 2) + 1;
  const y = grid.y + grid.height / 2;
  await page.mouse.move(x(from), y);
  await page.mouse.down();
  const steps = 12;
  for (let i = 1; i <= steps; i++) await page.mouse.move(x(from) + ((x(to) - x(from)) * i) / steps, y);
  await expect(chart.getByTestId("zoom-selection")).toHaveCount(1);
  await page.mouse.up();
}

/**
 * The embedded demo server the e2e server started (INFLIGHT_DEMO_DIR=.inflight/e2e
 * in playwright.config.ts): its data directory (moved under the temp folder,
 * as lib/server/demo/placement.ts does, when the postgres user cannot enter
 * the project), port and superuser password, for specs that put data there.
 */
export function demoCluster(): { dataDir: string; port: number; superuserPassword: string } {
  const preferred = path.resolve(".inflight/e2e/demo-pg");
  const moved = path.join(
    realpathSync(os.tmpdir()),
    `inflight-${createHash("sha256").update(preferred).digest("hex").slice(0, 10)}`,
    "demo-pg",
  );
  const dataDir = [preferred, moved].find((d) => existsSync(path.join(d, "postmaster.pid")));
  if (!dataDir) throw new Error(`no running demo cluster in ${preferred} or ${moved}`);
  const port = Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[3]);
  const secrets = JSON.parse(readFileSync(path.join(path.dirname(dataDir), "demo-pg.secrets.json"), "utf8")) as {
    superuserPassword: string;
  };
  return { dataDir, port, superuserPassword: secrets.superuserPassword };
}

/** A port nobody listens on now (the OS's pick). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The built inflight on a port of its own, watching `databaseUrl` (a cluster
 * of a spec's own: no INFLIGHT_* of the run's own server, only `settings`),
 * once it answers /api/health. Its base URL, and the process to stop.
 */
export async function startInflightOn(
  databaseUrl: string,
  settings: Record<`INFLIGHT_${string}`, string> = {},
): Promise<{ base: string; server: ChildProcess }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    NODE_ENV: "production",
  };
  for (const key of Object.keys(env)) if (key.startsWith("INFLIGHT_")) delete env[key];
  Object.assign(env, settings);
  const server = spawn(process.execPath, [path.resolve(import.meta.dirname, "..", "scripts", "start.mjs"), "--no-build"], {
    cwd: path.resolve(import.meta.dirname, ".."),
    env,
    stdio: "ignore",
  });
  await expect.poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status, { timeout: 60_000 }).toBe(200);
  return { base, server };
}

/** Stops an inflight server of startInflightOn and waits for it to exit (its history is on disk then). */
export async function stopInflight(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((r) => server.once("exit", r));
  server.kill("SIGTERM");
  await exited;
}

/**
 * Drops a table's files (each 1 GB segment) from the OS page cache with
 * `dd iflag=nocache count=0`, so its next scan reads from disk (as
 * lib/server/demo/evict.ts does for the demo). Only clean pages go: the
 * caller writes the table out (CHECKPOINT) or drops its buffers first.
 */
export async function dropFromOsCache(client: pg.Client, dataDir: string, table: string): Promise<void> {
  const { rows } = await client.query<{ p: string }>("SELECT pg_relation_filepath($1::regclass) AS p", [table]);
  for (let seg = 0; ; seg++) {
    const file = path.join(dataDir, rows[0].p) + (seg ? `.${seg}` : "");
    if (!existsSync(file)) break;
    spawnSync("dd", [`if=${file}`, "iflag=nocache", "count=0"]);
  }
}

/** What a person reads before the first chart, as ../shared/tools/words.mjs counts it. */
export interface FirstScreen {
  /** visible words above the first chart (its panel where the panel is plainly its box), header included */
  above: number;
  /** of them, in the findings (the causes and the running queries' verdicts) */
  findings: number;
  text: string;
}

/**
 * Counts the visible words above the first chart (an svg at least 300 px
 * wide, from its panel's top where the panel is plainly its box), the way
 * the figure is measured, and those of the findings among them.
 */
export function firstScreen(page: Page): Promise<FirstScreen> {
  return page.evaluate(() => {
    const svg = [...document.querySelectorAll("svg")].find((s) => s.getBoundingClientRect().width >= 300);
    let limit = svg ? svg.getBoundingClientRect().top : Infinity;
    if (svg) {
      let el: Element = svg;
      while (el.parentElement && !el.parentElement.querySelector("h1,h2,h3,h4")) el = el.parentElement;
      const panel = el.parentElement;
      const pr = panel?.getBoundingClientRect();
      const sr = svg.getBoundingClientRect();
      if (pr && pr.top >= 80 && pr.height <= sr.height * 2 + 250 && pr.top < limit) limit = pr.top;
    }
    const findings = document.querySelector('[data-testid="findings"]');
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const words: string[] = [];
    let inFindings = 0;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest("svg,script,style") || !el.checkVisibility()) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const rect = range.getBoundingClientRect();
      if (rect.height === 0 || rect.top >= limit) continue;
      const w = (n.textContent ?? "").split(/\s+/).filter(Boolean);
      words.push(...w);
      if (findings?.contains(n)) inFindings += w.length;
    }
    return { above: words.length, findings: inFindings, text: words.join(" ") };
  });
}
