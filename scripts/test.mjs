// `npm test`: what the machine must have first (scripts/prereqs.mjs: as
// root with apt-get it installs Debian's packages itself), the lint (ESLint,
// eslint.config.mjs: cheap, so it goes first), the build, then unit and
// integration tests (vitest, against real PostgreSQL servers: 18, embedded
// and Debian's; 19, Debian's, in the folder scripts/iouring-pg.mjs makes;
// and 15, for an upgrade from an older major), then the browser tests
// (Playwright in Chromium against the built server).
// Stops at the first failing stage.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { buildIfNeeded } from "./build-if-needed.mjs";
import { ensurePrereqsOrExit, testNeeds } from "./prereqs.mjs";

const LABEL = "[inflight test]";
const bin = (pkg, file) => path.join(process.cwd(), "node_modules", pkg, file);

function stage(name, args) {
  console.log(`\n${LABEL} ${name}`);
  const started = Date.now();
  const result = spawnSync(process.execPath, args, { stdio: "inherit", env: process.env });
  console.log(`${LABEL} ${name}: ${result.status === 0 ? "passed" : "FAILED"} in ${Math.round((Date.now() - started) / 1000)} s`);
  if (result.status !== 0) process.exit(result.status ?? 1);
}

ensurePrereqsOrExit(testNeeds(), { label: LABEL });
stage("lint (ESLint)", [bin("eslint", "bin/eslint.js"), "."]);
// Integration tests start the built server too: build first.
await buildIfNeeded(process.cwd(), { label: LABEL });
stage("unit + integration (vitest)", [bin("vitest", "vitest.mjs"), "run"]);
stage("browser (Playwright, Chromium)", [bin("@playwright/test", "cli.js"), "test"]);
