// `npm run bench`: checks the tools the bench runs beside inflight (and
// installs them from Debian as root, scripts/prereqs.mjs), builds
// the app if the build is stale, then runs bench/run.ts through vitest
// (TypeScript; about 25 minutes: the four server sizes of figure 9 first,
// then the browser figure needs a full 15-minute window at 10 samples a
// second). Writes bench/results.json and the table into BENCHMARKS.md.
// BENCH_QUICK=1: a short smoke run (2-minute window, fewer scans, about 6
// minutes) written to bench/tmp/ instead.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { buildIfNeeded } from "./build-if-needed.mjs";
import { benchNeeds } from "./prereq-needs.mjs";
import { ensurePrereqsOrExit } from "./prereqs.mjs";

const root = process.cwd();
const t0 = Date.now();

// pgbench, pg_activity, chromium, script, dd, getconf: installed from Debian
// as root with apt-get, otherwise one line each with the command, and exit 1.
ensurePrereqsOrExit(benchNeeds(), { label: "[inflight bench]" });

// figures 11 and 12 alone watch from the bench's own process: nothing to build
if (!["timeleft", "pgws"].includes(process.env.BENCH_ONLY ?? "")) await buildIfNeeded(root, { label: "[inflight bench]" });
console.log(`[inflight bench] running (about ${process.env.BENCH_QUICK === "1" ? 6 : 25} minutes)`);
const result = spawnSync(
  process.execPath,
  [path.join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--config", "bench/vitest.bench.config.ts"],
  {
    stdio: "inherit",
    env: { ...process.env, BENCH_T0: String(t0) },
  },
);
process.exit(result.status ?? 1);
