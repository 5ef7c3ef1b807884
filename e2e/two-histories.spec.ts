import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { debianFolder, debianPg, removeDebianPg, type DebianCluster } from "./debian-pg";
import { openTarget, startInflightOn, stopInflight } from "./helpers";

// Issue 19: two servers on one host keep two histories. Two clusters of
// Debian's PostgreSQL 18 (scripts/iouring-pg.mjs) on 127.0.0.1, each watched
// in turn by an inflight of this spec's own through its DATABASE_URL (so
// both targets are named after the host, 127.0.0.1), one history file for
// all three runs: the first server restarted worker -> sync while watched,
// the second never was. The second's page must not show the first's
// restart as its own; the first's, opened again, still shows it.

const NAMES = [`e2e-hist-a-${process.pid}`, `e2e-hist-b-${process.pid}`] as const;
const RESTART = "io_method worker -> sync";

debianFolder();

/** The finding that names the server's start and what the restart into it changed. */
const startFindingOf = (page: Page) =>
  page
    .locator('[data-testid="finding"]:is([data-rule="restart_applied"], [data-rule="settings_unchanged"])')
    .filter({ hasText: /Server started \d\d:\d\d:\d\d/ });

/** The target page of an inflight watching one server, named after its host. */
async function openOn(page: Page, base: string): Promise<void> {
  await openTarget(page, `${base}/targets/127.0.0.1`);
  await expect(startFindingOf(page)).toHaveCount(1, { timeout: 30_000 });
}

test.describe("two servers on one host", () => {
  const clusters: DebianCluster[] = [];
  let dir: string;
  let server: ChildProcess | null = null;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-e2e-histories-"));
    for (const name of NAMES) clusters.push(debianPg("start", "--data", name, "-c", "io_method=worker"));
  });

  test.afterAll(async () => {
    if (server) await stopInflight(server);
    for (const name of NAMES) removeDebianPg(name);
    rmSync(dir, { recursive: true, force: true });
  });

  test("keep two histories under one name: the second server's page never shows the first's restart", async ({ page }) => {
    test.setTimeout(240_000);
    const [a, b] = clusters;
    expect(a.port).not.toBe(b.port);
    const settings = { INFLIGHT_HISTORY_FILE: path.join(dir, "history.db") } as const;
    const startFinding = startFindingOf(page);

    // The first server, restarted worker -> sync while watched: its page says what that restart changed.
    let base: string;
    ({ base, server } = await startInflightOn(a.superuserUrl, settings));
    await openOn(page, base);
    debianPg("restart", "--data", NAMES[0], "--io-method", "sync");
    await expect(startFinding).toContainText(`that restart changed ${RESTART}, in force`, { timeout: 60_000 });
    await expect(startFinding).toHaveAttribute("data-rule", "restart_applied");
    await stopInflight(server);

    // The second server, on the same host, in the same history file, never restarted while watched.
    ({ base, server } = await startInflightOn(b.superuserUrl, settings));
    await openOn(page, base);
    await expect(startFinding).toHaveAttribute("data-rule", "settings_unchanged");
    await expect(startFinding).toContainText("before inflight's history of this server begins");
    const text = await page.locator("main").innerText();
    expect(text).not.toContain(RESTART);
    await expect(page.getByTestId("compare-change")).toHaveCount(0);
    await page.screenshot({ path: "test-results/two-histories-b.png", fullPage: true });
    await stopInflight(server);

    // The first again: its restart is still its own, read from the history.
    ({ base, server } = await startInflightOn(a.superuserUrl, settings));
    await openOn(page, base);
    await expect(startFinding).toContainText(`that restart changed ${RESTART}, in force`);
    await expect(page.getByTestId("compare-change").filter({ hasText: RESTART })).toHaveCount(1, { timeout: 30_000 });
    await stopInflight(server);
    server = null;
  });
});
