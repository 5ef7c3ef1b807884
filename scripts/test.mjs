// `npm test`: what the machine must have first (scripts/prereqs.mjs: as
// root with apt-get it installs Debian's packages itself), the lint (ESLint,
// eslint.config.mjs, Prettier's check, and the docs' links: cheap, so they go first), the build, then unit and
// integration tests (vitest, against real PostgreSQL servers: 18, embedded
// and Debian's; 19, Debian's, in the folder scripts/iouring-pg.mjs makes;
// and 15, for an upgrade from an older major), then the browser tests
// (Playwright in Chromium against the built server). The browser tests'
// demo table is seeded in the background while the integration tests that
// wait for conditions run; the timed ones run after it, with nothing beside them.
// Stops at the first failing stage.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildIfNeeded } from "./build-if-needed.mjs";
import { testNeeds } from "./prereq-needs.mjs";
import { ensurePrereqsOrExit } from "./prereqs.mjs";
import { E2E_DEMO_ENV, E2E_PORT } from "../e2e/demo-env.mjs";

const LABEL = "[inflight test]";
const bin = (pkg, file) => path.join(process.cwd(), "node_modules", pkg, file);

/** Runs one stage to its end (asynchronously: the background seeding goes on meanwhile); exits on failure. */
async function stageAsync(name, args) {
  console.log(`\n${LABEL} ${name}`);
  const started = Date.now();
  const child = spawn(process.execPath, args, { stdio: "inherit", env: process.env });
  const status = await new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  console.log(`${LABEL} ${name}: ${status === 0 ? "passed" : "FAILED"} in ${Math.round((Date.now() - started) / 1000)} s`);
  if (status !== 0) process.exit(status);
}

/**
 * Seeds the browser tests' demo (its 1 GB table, e2e/demo-env.mjs) in the
 * background: the built server started as Playwright starts it, on a port of
 * its own and a throwaway history file, and stopped once its demo workload
 * runs. Seeding takes one core for a minute and more; here it overlaps the
 * integration tests that wait for conditions (it starts after the build),
 * not the browser tests' first minute. Whatever goes wrong, Playwright's server seeds it
 * itself (the table carries a marker only once it is whole).
 */
function seedE2eDemo() {
  const started = Date.now();
  const historyDir = mkdtempSync(path.join(os.tmpdir(), "inflight-e2e-seed-"));
  const env = {
    ...process.env,
    ...E2E_DEMO_ENV,
    PORT: String(E2E_PORT + 1),
    HOST: "127.0.0.1",
    INFLIGHT_HISTORY_FILE: path.join(historyDir, "history.db"),
  };
  const child = spawn(process.execPath, ["scripts/start.mjs", "--no-build"], { env, stdio: ["ignore", "pipe", "pipe"] });
  const lines = [];
  let reported = false;
  const onLine = (line) => {
    lines.push(line);
    const seeded = /: ready, \d+ MB seeded in [\d.]+ s/.exec(line);
    if (seeded) console.log(`${LABEL} e2e demo (background): table${seeded[0].slice(1)}`);
    if (/demo workload running on /.test(line) && !reported) {
      reported = true;
      child.kill("SIGTERM");
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    let rest = "";
    stream.on("data", (chunk) => {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop();
      parts.forEach(onLine);
    });
  }
  // A failing stage exits this process: the server stops too (its SIGTERM handler stops PostgreSQL).
  const stop = () => child.kill("SIGTERM");
  process.on("exit", stop);
  const done = new Promise((resolve) => child.on("exit", resolve)).then((code) => {
    process.off("exit", stop);
    rmSync(historyDir, { recursive: true, force: true });
    const s = Math.round((Date.now() - started) / 1000);
    if (reported) console.log(`${LABEL} e2e demo (background): ready in ${s} s`);
    else
      console.log(
        `${LABEL} e2e demo (background): stopped after ${s} s (exit ${code}) before its workload ran; Playwright's server seeds it instead. Its last lines:\n${lines.slice(-5).join("\n")}`,
      );
  });
  return {
    /** Waits for the seeding to end, at most `ms`, then stops it. */
    async finish(ms) {
      const timer = setTimeout(() => child.kill("SIGTERM"), ms);
      await done;
      clearTimeout(timer);
    },
  };
}

ensurePrereqsOrExit(testNeeds(), { label: LABEL });
await stageAsync("lint (ESLint)", [bin("eslint", "bin/eslint.js"), "."]);
await stageAsync("format (Prettier)", [bin("prettier", "bin/prettier.cjs"), "--check", "."]);
await stageAsync("docs' links", ["scripts/check-links.mjs"]);
// Integration tests start the built server too: build first.
await buildIfNeeded(process.cwd(), { label: LABEL });
const seeding = seedE2eDemo();
await stageAsync("unit + integration (vitest)", [bin("vitest", "vitest.mjs"), "run", "--project", "unit", "--project", "integration"]);
// The timed tests measure rates and shares of a core: nothing of ours beside them.
await seeding.finish(300_000);
await stageAsync("integration, timed, one at a time (vitest)", [bin("vitest", "vitest.mjs"), "run", "--project", "integration-timed"]);
await stageAsync("browser (Playwright, Chromium)", [bin("@playwright/test", "cli.js"), "test"]);
