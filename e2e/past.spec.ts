import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { demoCluster, expandRunGroups, openTarget } from "./helpers";

// Issue 22: the past after an inflight restart. A second inflight watches the
// demo's cluster while a statement runs, is stopped and started again on the
// same history file: a link to that range opens it from disk, with the run.

const MARK = `past-e2e-${Date.now()}`;

function startInflight(port: number, env: Record<string, string>): { child: ChildProcess; exited: Promise<unknown> } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("INFLIGHT_") && k !== "DATABASE_URL" && k !== "PORT" && k !== "HOST"));
  const child = spawn(process.execPath, ["scripts/start.mjs", "--no-build"], { env: { ...clean, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", ...env }, stdio: "ignore" });
  return { child, exited: new Promise((resolve) => child.on("exit", resolve)) };
}

async function stopInflight(p: { child: ChildProcess; exited: Promise<unknown> }) {
  p.child.kill("SIGTERM");
  await p.exited;
}

test("a past range opens from disk after inflight restarts, with the run it held", async ({ page, request, baseURL }) => {
  test.setTimeout(180_000);
  await openTarget(page);
  const cluster = demoCluster();
  const url = `postgres://postgres:${encodeURIComponent(cluster.superuserPassword)}@127.0.0.1:${cluster.port}/inflight_demo`;
  const dir = mkdtempSync(path.join(os.tmpdir(), "inflight-past-e2e-"));
  const port = Number(new URL(baseURL!).port) + 1000;
  const env = { INFLIGHT_TARGETS: `past=${url}`, INFLIGHT_HISTORY_FILE: path.join(dir, "history.db") };
  const other = `http://127.0.0.1:${port}`;
  const client = new pg.Client({ connectionString: url, application_name: "past-e2e" });
  await client.connect();
  let inflight = startInflight(port, env);
  try {
    await expect.poll(async () => (await request.get(`${other}/api/health`).catch(() => null))?.ok() ?? false, { timeout: 60_000 }).toBe(true);
    await openTarget(page, `${other}/targets/past`);
    const from = Date.now();
    await client.query(`SELECT /* ${MARK} */ pg_sleep(2)`);
    await expandRunGroups(page);
    const row = page.getByTestId("query-row").filter({ hasText: MARK });
    await expect(row.first()).toHaveAttribute("data-running", "false", { timeout: 30_000 });
    const runId = await row.first().getAttribute("data-run");
    const to = Date.now() + 2000;
    await page.waitForTimeout(1500); // the recorder's once-a-second look has the run ended
    await stopInflight(inflight);

    inflight = startInflight(port, env);
    await expect.poll(async () => (await request.get(`${other}/api/health`).catch(() => null))?.ok() ?? false, { timeout: 60_000 }).toBe(true);
    await openTarget(page, `${other}/targets/past?from=${from - 5000}&to=${to}`);
    await expect(page.getByTestId("frozen-bar")).toBeVisible();
    await expect(page.getByTestId("past-state")).toHaveAttribute("data-state", "ready", { timeout: 30_000 });
    await expandRunGroups(page);
    await expect(page.locator(`[data-testid="query-row"][data-run="${runId}"]`)).toContainText(MARK);
    await expect(page.getByTestId("past-findings")).toBeVisible();
  } finally {
    await client.end();
    await stopInflight(inflight);
    rmSync(dir, { recursive: true, force: true });
  }
});
