// `npm run bench` (through scripts/bench.mjs and vitest): what watching costs
// the target, how fresh the picture is, how it scales. One embedded
// PostgreSQL 18, several inflight servers (one per sampling rate, each under
// its own login role), pgbench and pg_activity beside them, all in one run.
// Writes bench/results.json and the table into BENCHMARKS.md (between its
// markers; the prose around it is hand-written). BENCHMARKS.md says how each
// figure is measured.
//
// Timeline (the 10/s server "A" runs from setup to the end with a viewer, so
// its 15-minute window is full when the browser is measured last), one
// module of bench/phases/ a step:
//   0 sizes: before anything else runs, four server sizes one at a time
//      (max_connections 100 and 1000 x io_max_concurrency 16 and 64), one
//      inflight at the default budget on each, idle and during cold scans,
//      and one bare read of each view under pgbench -> figure 9
//   setup: the target, the scan driver, A (10/s) and D (1/s)
//   1 scans: A and D watch, pg_activity (0.5 s) and pgbench (activity.sql
//      and aios.sql bare, the view and SELECT 1) run beside them;
//      30 s quiet, then 420 s of cold scans -> figures 1, 2 (10/s), 4, 7, 8
//   2 viewers: A with 1, then 50 SSE viewers -> figure 3; the 60 s window
//      server "E" starts and runs until the browser phase -> figure 5
//   3 rates: B (50/s), then C (100/s) during scans -> figures 1 (CPU at
//      50/s), 2
//   4 browser: once A has watched for its whole window, Chromium on A's
//      target page (every chart on screen, then a 1920x1080 view) -> figure 6
//   5 fleet: after everything else has stopped, one inflight process with
//      10, 50 and 100 targets on one embedded server -> figure 10
//   6 time left: cold scans alone and four at once -> figure 11
//   7 wait sampling: Debian's PostgreSQL 18 with pg_wait_sampling (the
//      folder the tests bootstrap), the extension against the polls alone,
//      on a small server and on 1000 x 64 -> figure 12
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "vitest";
import { snapshotApp } from "./lib/app";
import { benchConfig, ROLES } from "./lib/config";
import { takeLock } from "./lib/lock";
import { toolVersion } from "./lib/peers";
import { loadAvg, machine } from "./lib/proc";
import { writeReport } from "./lib/report";
import { browserOnFullWindow } from "./phases/browser";
import type { Bench, Json, PhaseContext } from "./phases/context";
import { fasterRates } from "./phases/rates";
import { scansBesidePeers } from "./phases/scans";
import { setUp, tearDown } from "./phases/setup";
import { pageAB } from "./phases/ab-page";
import { manyTargets } from "./phases/fleet";
import { costBySize } from "./phases/sizes";
import { soakFigureRun } from "./phases/soak";
import { timeLeftFigure } from "./phases/time-left";
import { waitSamplingFigure } from "./phases/wait-sampling";
import { viewersAndMemory } from "./phases/viewers";

const ROOT = path.resolve(import.meta.dirname, "..");
const TMP = path.join(ROOT, "bench", "tmp");
const env = process.env;
const CFG = benchConfig(env);

const PHASES: [string, (ctx: PhaseContext) => Promise<void>][] = [
  ["1 scans", scansBesidePeers],
  ["2 viewers", viewersAndMemory],
  ["3 rates", fasterRates],
  ["4 browser", browserOnFullWindow],
];

/**
 * BENCH_ONLY=browser: the target page alone (setup, scans in the background,
 * the browser phase once A's window is full); BENCH_ONLY=fleet: the many
 * targets of one process alone; BENCH_ONLY=sizes: figure 9 alone;
 * BENCH_ONLY=scans: phase 1 alone (figures 1, 2, 4, 7 and 8, about 9 minutes);
 * BENCH_ONLY=ab: this build's target page against another's (phases/ab-page.ts);
 * BENCH_ONLY=timeleft: figure 11 alone (no build needed, about 4 minutes);
 * BENCH_ONLY=pgws: figure 12 alone (Debian's PostgreSQL 18 with pg_wait_sampling
 * from the test support's folder; no build needed, about 5 minutes);
 * BENCH_ONLY=soak: one server at the shipped defaults for BENCH_SOAK_MIN minutes (phases/soak.ts). Written to bench/tmp/results.<name>.json,
 * never to results.json or the tables here (those are from one whole run).
 */
const ONLY = env.BENCH_ONLY ?? null;
if (ONLY !== null && !["browser", "fleet", "sizes", "scans", "ab", "timeleft", "pgws", "soak"].includes(ONLY))
  throw new Error(`BENCH_ONLY=${ONLY}: browser, fleet, sizes, scans, ab, timeleft, pgws or soak`);

const started = Date.now();
const log = (line: string) => console.log(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

const results: Json = {
  version: 1,
  startedAt: new Date(started).toISOString(),
  command: ONLY ? `BENCH_ONLY=${ONLY} npm run bench` : "npm run bench",
  config: CFG,
  machine: machine(),
  load: [] as { phase: string; at: string; loadavg: number[] }[],
  errors: [] as string[],
};
const errors = results.errors as string[];
const noteLoad = (phase: string) => (results.load as Json[]).push({ phase, at: new Date().toISOString(), loadavg: loadAvg() });

/** A run that measured nothing (failed at the start) leaves the last good results alone. */
const measured = () => results.fig1 !== undefined || results.fig9 !== undefined;
/** Figures 11 and 12 watch from the bench's own process: no build to serve. */
const IN_PROCESS = ["timeleft", "pgws"];

function save() {
  const file = ONLY
    ? `tmp/results.${ONLY}.json`
    : CFG.quick
      ? "tmp/results.quick.json"
      : measured()
        ? "results.json"
        : "tmp/results.failed.json";
  writeFileSync(path.join(ROOT, "bench", file), JSON.stringify(results, null, 2) + "\n");
}

/** Runs one phase; its failure is recorded and the run goes on to the next. Saves the results after it. */
async function phase(name: string, fn: () => Promise<void>) {
  log(`== ${name}`);
  noteLoad(`${name}: start`);
  try {
    await fn();
  } catch (err) {
    const text = `${name}: ${(err as Error).stack ?? String(err)}`;
    errors.push(text.slice(0, 2000));
    log(`!! ${text}`);
  }
  noteLoad(`${name}: end`);
  save();
}

/** The whole-run view of A: every tick it took vs the slots since it was watched. */
async function summarizeServerA({ A, scans }: PhaseContext) {
  const iA = await A.info();
  results.serverA = {
    samples: iA.samples,
    missed: iA.missed,
    watchedSeconds: (Date.now() - A.watchedSince) / 1000,
    scansTotal: scans.scans.length,
    scanErrors: scans.errors.slice(0, 5),
  };
}

function finish(unlock: () => void) {
  results.finishedAt = new Date().toISOString();
  results.durationSeconds = Math.round((Date.now() - started) / 1000);
  // from `npm run bench` itself: the build check and vitest's start too
  if (env.BENCH_T0) results.totalSeconds = Math.round((Date.now() - Number(env.BENCH_T0)) / 1000);
  noteLoad("end");
  save();
  if (!ONLY) writeReport(results, { root: ROOT, quick: CFG.quick || !measured() });
  unlock();
  log(`done in ${results.durationSeconds} s; errors: ${errors.length}`);
}

test("inflight benchmarks", async () => {
  if (env.BENCH_REPORT_ONLY === "1") {
    // re-render BENCHMARKS.md from bench/results.json without measuring
    writeReport(JSON.parse(readFileSync(path.join(ROOT, "bench", "results.json"), "utf8")), { root: ROOT, quick: false });
    return;
  }
  mkdirSync(TMP, { recursive: true });
  const unlock = takeLock(TMP);
  log(`config ${JSON.stringify(CFG)}`);
  results.tools = {
    pgbench: toolVersion("pgbench", ["--version"]),
    pg_activity: toolVersion("pg_activity", ["--version"]),
    chromium: toolVersion(env.CHROMIUM_PATH ?? "/usr/bin/chromium", ["--version"]),
  };
  const bench: Bench = {
    cfg: CFG,
    roles: ROLES,
    paths: { root: ROOT, tmp: TMP, app: path.join(TMP, "app") },
    started,
    results,
    errors,
    log,
    save,
    running: { target: null, driver: null, servers: [], peers: [], viewers: [] },
    memory: { task: Promise.resolve(), stop: false },
  };
  try {
    if (!IN_PROCESS.includes(ONLY ?? "")) {
      results.buildId = snapshotApp(bench.paths.root, bench.paths.app);
      log(`serving build ${results.buildId} from a snapshot in ${path.relative(ROOT, bench.paths.app)}`);
    }
    if (ONLY === "timeleft") await phase("6 time left", () => timeLeftFigure(bench));
    else if (ONLY === "pgws") await phase("7 wait sampling", () => waitSamplingFigure(bench));
    else if (ONLY === "fleet") await phase("5 fleet", () => manyTargets(bench));
    else if (ONLY === "soak") await phase("soak", () => soakFigureRun(bench));
    else if (ONLY === "sizes") await phase("0 sizes", () => costBySize(bench));
    else if (ONLY === "scans") {
      const ctx: PhaseContext = { ...bench, ...(await setUp(bench)) };
      await phase("1 scans", () => scansBesidePeers(ctx));
    } else if (ONLY === "ab") {
      const ctx: PhaseContext = { ...bench, ...(await setUp(bench)) };
      await phase("ab page", () => pageAB(ctx));
    } else if (ONLY === "browser") {
      const ctx: PhaseContext = { ...bench, ...(await setUp(bench)) };
      ctx.scans.phase = "background";
      void ctx.scans.start();
      await phase("4 browser", () => browserOnFullWindow(ctx));
    } else {
      await phase("0 sizes", () => costBySize(bench));
      const ctx: PhaseContext = { ...bench, ...(await setUp(bench)) };
      for (const [name, run] of PHASES) await phase(name, () => run(ctx));
      await summarizeServerA(ctx);
      // alone on the machine: everything above has stopped
      await tearDown(bench);
      await phase("5 fleet", () => manyTargets(bench));
      await phase("6 time left", () => timeLeftFigure(bench));
      await phase("7 wait sampling", () => waitSamplingFigure(bench));
    }
  } finally {
    await tearDown(bench);
    finish(unlock);
  }
  if (errors.length) throw new Error(`the bench finished with ${errors.length} error(s):\n${errors.join("\n")}`);
});
