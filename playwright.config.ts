import { defineConfig } from "@playwright/test";
import { E2E_DEMO_ENV, E2E_PORT } from "./e2e/demo-env.mjs";

// Debian's chromium by default (Playwright cannot download its own here);
// PLAYWRIGHT_CHROMIUM=bundled uses Playwright's on a machine that has it.
const executablePath = process.env.PLAYWRIGHT_CHROMIUM === "bundled" ? undefined : (process.env.CHROMIUM_PATH ?? "/usr/bin/chromium");
const port = E2E_PORT;
// IOURING_TESTS=skip: the specs that need the Debian folder (io_uring, PostgreSQL 19, two servers
// of Debian's 18) are left out, and the run says so; otherwise a machine that cannot run them
// fails them with the reason.
const folderSpecs = ["**/iouring.spec.ts", "**/pg19.spec.ts", "**/two-histories.spec.ts"];
const leftOut = process.env.IOURING_TESTS === "skip" ? folderSpecs : [];
if (leftOut.length)
  console.log(`[inflight test] IOURING_TESTS=skip: ${folderSpecs.map((s) => s.replace("**/", "")).join(", ")} not run, as asked`);

// Specs that change the demo server (restart it, its io settings, the lab's
// runs) or start clusters of their own with several cold scans (a second
// Chromium beside them starved on two cores): one at a time, after the
// specs that only read the demo, which run two at a time.
const alone = [
  "**/glance.spec.ts",
  "**/lab-levers.spec.ts",
  "**/restart.spec.ts",
  "**/settings-fresh.spec.ts",
  "**/what-changed.spec.ts",
  "**/what-leads.spec.ts",
  "**/workers.spec.ts",
  ...folderSpecs,
];

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  timeout: 180_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  projects: [
    { name: "reads the demo", testIgnore: [...alone, ...leftOut] },
    { name: "alone", testMatch: alone, testIgnore: leftOut, dependencies: ["reads the demo"], workers: 1 },
  ],
  reporter: [["list"]],
  outputDir: "test-results",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1440, height: 1000 },
    launchOptions: {
      executablePath,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: {
    // The real server as a newcomer starts it: build if needed, embedded
    // PostgreSQL 18 with its demo workload; the demo's io settings as a
    // newcomer finds them first (e2e/fresh-demo.mjs).
    command: "node e2e/fresh-demo.mjs && node scripts/start.mjs",
    url: `http://127.0.0.1:${port}/api/health`,
    timeout: 300_000,
    reuseExistingServer: false,
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
    stdout: "pipe",
    stderr: "pipe",
    // The demo's table size, budget and history file: e2e/demo-env.mjs.
    env: { PORT: String(port), HOST: "127.0.0.1", ...E2E_DEMO_ENV },
  },
});
