// `npm run bench`: checks the tools the bench runs beside inflight, builds
// the app if the build is stale, then runs bench/run.ts through vitest
// (TypeScript; about 18 minutes: the browser figure needs a full 15-minute
// window at 10 samples a second). Writes bench/results.json and the table
// into BENCHMARKS.md. BENCH_QUICK=1: a short smoke run (2-minute window,
// fewer scans) written to bench/tmp/ instead.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { buildIfNeeded } from "./build-if-needed.mjs";

const root = process.cwd();
const t0 = Date.now();
const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).status === 0;
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const missing = [];
if (!has("pgbench")) missing.push("pgbench (figure 1): apt-get install -y postgresql-client");
if (!has("pg_activity")) missing.push("pg_activity (figure 8): apt-get install -y pg-activity");
if (process.env.PLAYWRIGHT_CHROMIUM !== "bundled" && !existsSync(chromium)) missing.push(`chromium at ${chromium} (figure 6): apt-get install -y chromium, or set CHROMIUM_PATH, or PLAYWRIGHT_CHROMIUM=bundled`);
for (const cmd of ["script", "dd", "getconf"]) if (!has(cmd)) missing.push(`${cmd}: apt-get install -y util-linux coreutils libc-bin`);
if (process.platform !== "linux") missing.push("Linux: the bench reads /proc");
if (missing.length) {
  console.error("[inflight bench] missing:\n  " + missing.join("\n  "));
  process.exit(1);
}

buildIfNeeded(root);
console.log(`[inflight bench] running (about ${process.env.BENCH_QUICK === "1" ? 5 : 18} minutes)`);
const result = spawnSync(process.execPath, [path.join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--config", "bench/vitest.bench.config.ts"], {
  stdio: "inherit",
  env: { ...process.env, BENCH_T0: String(t0) },
});
process.exit(result.status ?? 1);
