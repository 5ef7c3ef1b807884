// Chromium as the attacker (issue 15), against the real built server in
// demo mode (its embedded PostgreSQL 18): a page on another port of
// 127.0.0.1 sends the demo restart as a no-cors text/plain POST, then as a
// form; a rebound name (evil.example resolved to 127.0.0.1) reads the API.
// First with no token, then with one and the engineer signed in (the
// SameSite=strict cookie goes along: the attacker's port is the same site).
// The embedded server must never restart; the page's own sign-in and
// restart button must still work.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TargetsResponse } from "../lib/schemas/api";
import type { TargetInfo } from "../lib/schemas/target";
import { waitFor } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";

const TOKEN = "cross-site-token-0123456789abcdef";
const EXECUTABLE = process.env.PLAYWRIGHT_CHROMIUM === "bundled" ? undefined : (process.env.CHROMIUM_PATH ?? "/usr/bin/chromium");
const demoDir = mkdtempSync(path.join(os.tmpdir(), "inflight-cross-site-"));
chmodSync(demoDir, 0o755);

let server: RunningServer;
let attacker: http.Server;
let attackerUrl = "";
let browser: Browser;

async function demo(): Promise<TargetInfo> {
  const res = await fetch(`${server.url}/api/targets`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  return ((await res.json()) as TargetsResponse).targets[0];
}

async function startDemo(env: Record<string, string>): Promise<void> {
  server = await startServer({ INFLIGHT_DEMO_DIR: demoDir, INFLIGHT_DEMO_TABLE_MB: "16", INFLIGHT_DEMO_WORKLOAD: "0", ...env });
  await waitFor("the demo up", async () => (await demo()).status === "up" && (await demo()).postmasterStart !== null, 90_000);
}

/** The attacker's page, on another port: a form that posts the restart as text/plain (a "simple" request, no preflight). */
function attackerPage(target: string): string {
  return `<!doctype html><title>cat pictures</title>
<form id="restart" method="POST" action="${target}/api/targets/demo/demo" enctype="text/plain">
<input type="hidden" name='{"io_workers":2,"x":"' value='"}'></form>`;
}

/** From the attacker's page: the no-cors fetch of the issue, credentials included; what the server answered (seen by Chromium, not the page). */
async function noCorsRestart(page: Page): Promise<number | null> {
  const answered = page.waitForResponse((r) => r.url().endsWith("/api/targets/demo/demo"), { timeout: 10_000 });
  await page.evaluate(async (target) => {
    await fetch(`${target}/api/targets/demo/demo`, {
      method: "POST",
      mode: "no-cors",
      credentials: "include",
      headers: { "Content-Type": "text/plain" },
      body: '{"io_workers":2}',
    });
  }, server.url);
  return (await answered).status();
}

/** The form, submitted: the browser navigates to the server's answer. */
async function formRestart(page: Page): Promise<{ status: number | undefined; text: string }> {
  const [response] = await Promise.all([
    page.waitForNavigation(),
    page.evaluate(() => (document.getElementById("restart") as HTMLFormElement).submit()),
  ]);
  return { status: response?.status(), text: await page.locator("body").innerText() };
}

async function notRestarted(before: number | null): Promise<void> {
  // A restart would take a second or two: give it the time, then look.
  await new Promise((r) => setTimeout(r, 2500));
  expect((await demo()).postmasterStart).toBe(before);
  expect(server.output()).not.toContain("demo: restarting");
}

beforeAll(async () => {
  attacker = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(attackerPage(server.url)));
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as { port: number }).port}/`;
  browser = await chromium.launch({
    executablePath: EXECUTABLE,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--host-resolver-rules=MAP evil.example 127.0.0.1",
    ],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  attacker?.close();
  rmSync(demoDir, { recursive: true, force: true });
});

describe("no token", () => {
  beforeAll(() => startDemo({}), 180_000);
  afterAll(() => server.stop());

  it("a page on another port cannot restart the demo: no-cors fetch and form are refused, the server does not restart", async () => {
    const before = (await demo()).postmasterStart;
    const page = await browser.newPage();
    try {
      await page.goto(attackerUrl);
      expect(await noCorsRestart(page)).toBe(403);
      const form = await formRestart(page);
      expect(form.status).toBe(403);
      expect(JSON.parse(form.text).error.code).toBe("cross_origin");
      await notRestarted(before);
    } finally {
      await page.close();
    }
  });

  it("a rebound name reads nothing: Chromium at http://evil.example:<port> gets 421 for the API and the page", async () => {
    const page = await browser.newPage();
    try {
      for (const p of ["/api/targets", "/api/targets/demo/window", "/metrics", "/", "/targets/demo"]) {
        const res = await page.goto(`http://evil.example:${server.port}${p}`);
        expect(res?.status(), p).toBe(421);
        expect(JSON.parse(await page.locator("body").innerText()).error.code, p).toBe("wrong_host");
      }
    } finally {
      await page.close();
    }
  });
});

describe("with a token, the engineer signed in", () => {
  beforeAll(() => startDemo({ INFLIGHT_AUTH_TOKEN: TOKEN }), 180_000);

  it("signs in with the form, then a page on another port of 127.0.0.1 cannot restart the demo with the cookie; the page's own button can", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/targets/demo`);
      await page.fill("#token", TOKEN);
      await Promise.all([page.waitForURL(/\/targets\/demo/), page.click("button[type=submit]")]);
      await expect.poll(() => page.getByTestId("stream-state").getAttribute("data-state"), { timeout: 30_000 }).toBe("live");

      const before = (await demo()).postmasterStart;
      const evil = await context.newPage();
      await evil.goto(attackerUrl);
      expect(await noCorsRestart(evil)).toBe(403);
      expect((await formRestart(evil)).status).toBe(403);
      await notRestarted(before);

      // Same origin: the demo controls restart it.
      await page.getByTestId("demo-io-workers").fill("2");
      await page.getByTestId("demo-restart").click();
      await waitFor(
        "the embedded server restarted",
        async () => {
          const t = await demo();
          return t.postmasterStart !== before && t.status === "up";
        },
        60_000,
      );
    } finally {
      await context.close();
    }
  });

  it("the embedded PostgreSQL has no INFLIGHT_* variable (the token) in its environment", () => {
    const dataDir = /data in (\S+)/.exec(server.output())![1];
    const pid = Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
    const keys = environ.split("\0").map((kv) => kv.split("=")[0]);
    expect(keys.length).toBeGreaterThan(2);
    expect(keys.filter((k) => k.startsWith("INFLIGHT_") || k === "DATABASE_URL")).toEqual([]);
    expect(environ).not.toContain(TOKEN);
  });
});
