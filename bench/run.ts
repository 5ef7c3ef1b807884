// Size: one vitest body of phases sharing the targets and servers it starts;
// being split into bench/phases/ (one file a figure) with the cost figure.
// `npm run bench` (through scripts/bench.mjs and vitest): what watching costs
// the target, how fresh the picture is, how it scales. One embedded
// PostgreSQL 18, several inflight servers (one per sampling rate, each under
// its own login role), pgbench and pg_activity beside them, all in one run.
// Writes bench/results.json and the table into BENCHMARKS.md (between its
// markers; the prose around it is hand-written). BENCHMARKS.md says how each
// figure is measured.
//
// Timeline (the 10/s server "A" runs from start to end with a viewer, so its
// 15-minute window is full when the browser is measured last):
//   1 scans: A (10/s) and D (1/s) watch, pg_activity (0.5 s) and pgbench
//      (the sampling statement and four parts of it, bare) run beside them;
//      30 s quiet, then 420 s of cold scans -> figures 1, 2 (10/s), 4, 7, 8
//   2 viewers: A with 1, then 50 SSE viewers -> figure 3; the 60 s window
//      server "E" starts and runs until the browser phase -> figure 5
//   3 rates: B (50/s), then C (100/s) during scans -> figures 1 (CPU at
//      50/s), 2
//   4 browser: once A has watched for its whole window, Chromium on A's
//      target page (every chart on screen, then a 1920x1080 view) -> figure 6
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "vitest";
import { measureBrowser, type BrowserResult } from "./lib/browser";
import { snapshotApp } from "./lib/app";
import { startInflight, type Inflight } from "./lib/inflight";
import { readPgActivityCsv, startPgActivity, startPgbench, toolVersion, type Peer } from "./lib/peers";
import { cpuSeconds, loadAvg, machine, rssBytes } from "./lib/proc";
import { writeReport } from "./lib/report";
import { ScanDriver, type ScanRecord } from "./lib/scans";
import { SseViewer } from "./lib/sse";
import { quantile, sleep } from "./lib/stats";
import { backendPid, DEFAULT_DATA_DIR, pgssDelta, pgssSnapshot, startTarget, type BenchTarget } from "./lib/target";

const ROOT = path.resolve(import.meta.dirname, "..");
const TMP = path.join(ROOT, "bench", "tmp");
const APP = path.join(TMP, "app");
const env = process.env;
const QUICK = env.BENCH_QUICK === "1";
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);

const CFG = {
  quick: QUICK,
  tableMb: num("BENCH_TABLE_MB", 256),
  /** the scans alternate between the demo table and a smaller copy */
  smallTableMb: num("BENCH_SMALL_TABLE_MB", 64),
  /** A's window, and how long it is watched before the browser figure */
  windowMin: num("BENCH_WINDOW_MIN", QUICK ? 2 : 15),
  /** how long the cold scans of figures 1, 7 and 8 run */
  scanSeconds: num("BENCH_SCAN_S", QUICK ? 30 : 420),
  viewerSeconds: num("BENCH_VIEWER_S", QUICK ? 10 : 60),
  /** before the scans: the same observers on a quiet target */
  quietSeconds: num("BENCH_QUIET_S", QUICK ? 10 : 30),
  extraViewers: 49,
  rateSeconds: num("BENCH_RATE_S", QUICK ? 10 : 40),
  memWindowS: 60,
  browserSeconds: num("BENCH_BROWSER_S", QUICK ? 15 : 60),
  browserSettleSeconds: 10,
  desktopSeconds: num("BENCH_DESKTOP_S", QUICK ? 10 : 30),
  profileSeconds: num("BENCH_PROFILE_S", QUICK ? 5 : 10),
  shortScanMs: 1000,
  pgActivityRefreshS: 0.5,
};

const ROLES = {
  a: "bench_inflight_10hz",
  d: "bench_inflight_1hz",
  b: "bench_inflight_50hz",
  c: "bench_inflight_100hz",
  e: "bench_inflight_mem",
  pgbench: "bench_pgbench",
  pga: "bench_pg_activity",
};

const started = Date.now();
const log = (line: string) => console.log(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

type Json = Record<string, unknown>;
const results: Json = {
  version: 1,
  startedAt: new Date(started).toISOString(),
  command: "npm run bench",
  config: CFG,
  machine: machine(),
  load: [] as { phase: string; at: string; loadavg: number[] }[],
  errors: [] as string[],
};
const errors = results.errors as string[];
const noteLoad = (phase: string) => (results.load as Json[]).push({ phase, at: new Date().toISOString(), loadavg: loadAvg() });

/** A run that measured nothing (failed at the start) leaves the last good results alone. */
const measured = () => results.fig1 !== undefined;

function save() {
  const file = QUICK ? "tmp/results.quick.json" : measured() ? "results.json" : "tmp/results.failed.json";
  writeFileSync(path.join(ROOT, "bench", file), JSON.stringify(results, null, 2) + "\n");
}

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

const pct = (x: number) => Math.round(x * 10000) / 100;
const r3 = (x: number | null) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 1000) / 1000);
/** CPU shares: 0.00123 = 0.123% of a core */
const r5 = (x: number | null) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 100000) / 100000);

/** Ticks seen between two /api/targets readings, and over the SSE stream. */
async function measureRate(srv: Inflight, seconds: number) {
  const i0 = await srv.info();
  const t0 = Date.now();
  await sleep(seconds * 1000);
  const i1 = await srv.info();
  const t1 = Date.now();
  const elapsed = t1 - t0;
  const expected = elapsed / srv.sampleMs;
  const samples = i1.samples - i0.samples;
  const missed = i1.missed - i0.missed;
  const ticks = srv.viewer.ticks.filter((k) => k.t >= t0 && k.t < t1);
  const gaps: number[] = [];
  for (let i = 1; i < ticks.length; i++) gaps.push(ticks[i].t - ticks[i - 1].t);
  const fresh = ticks.map((k) => k.at - k.t);
  return {
    rate: 1000 / srv.sampleMs,
    sampleMs: srv.sampleMs,
    seconds: elapsed / 1000,
    expected: Math.round(expected),
    samples,
    missed,
    achievedShare: samples / expected,
    sseTicks: ticks.length,
    sseShare: ticks.length / expected,
    gapP50: quantile(gaps, 0.5),
    gapP99: quantile(gaps, 0.99),
    gapMax: gaps.length ? Math.max(...gaps) : null,
    freshnessP50: quantile(fresh, 0.5),
    freshnessP95: quantile(fresh, 0.95),
    from: t0,
    to: t1,
  };
}

async function cpuOfRole(target: BenchTarget, role: string, app?: string) {
  const pid = await backendPid(target.admin, role, app);
  return { pid, cpu: pid ? cpuSeconds(pid) : null };
}

/** Two runs at once would share the data dir (and each would measure the other). */
function takeLock(): () => void {
  const file = path.join(TMP, "bench.lock");
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, "utf8"));
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = pid !== process.pid;
    } catch {
      alive = false;
    }
    if (alive) throw new Error(`another bench run is going on (pid ${pid}, ${file}); wait for it`);
  }
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}

test("inflight benchmarks", async () => {
  if (env.BENCH_REPORT_ONLY === "1") {
    // re-render BENCHMARKS.md from bench/results.json without measuring
    writeReport(JSON.parse(readFileSync(path.join(ROOT, "bench", "results.json"), "utf8")), { root: ROOT, quick: false });
    return;
  }
  mkdirSync(TMP, { recursive: true });
  const unlock = takeLock();
  log(`config ${JSON.stringify(CFG)}`);
  results.tools = {
    pgbench: toolVersion("pgbench", ["--version"]),
    pg_activity: toolVersion("pg_activity", ["--version"]),
    chromium: toolVersion(env.CHROMIUM_PATH ?? "/usr/bin/chromium", ["--version"]),
  };

  let target: BenchTarget | null = null;
  let driver: ScanDriver | null = null;
  const servers: Inflight[] = [];
  const peers: Peer[] = [];
  const viewers: SseViewer[] = [];
  let memoryTask: Promise<void> = Promise.resolve();
  let stopMemory = false;
  try {
    // ---------------------------------------------------------------- setup
    const t0 = Date.now();
    results.buildId = snapshotApp(ROOT, APP);
    log(`serving build ${results.buildId} from a snapshot in ${path.relative(ROOT, APP)}`);
    target = await startTarget({ dataDir: env.BENCH_DATA_DIR ?? DEFAULT_DATA_DIR, tableMb: CFG.tableMb, smallTableMb: CFG.smallTableMb, roles: Object.values(ROLES), log });
    const tgt = target;
    const pgv = await tgt.admin.query<{ v: string; tbl: string; small: string }>(
      "SELECT version() AS v, pg_size_pretty(pg_relation_size($1::regclass)) AS tbl, pg_size_pretty(pg_relation_size($2::regclass)) AS small",
      [tgt.table, tgt.smallTable],
    );
    (results.tools as Json).postgres = pgv.rows[0].v;
    results.target = { table: tgt.table, tableSize: pgv.rows[0].tbl, smallTable: tgt.smallTable, smallTableSize: pgv.rows[0].small, setupSeconds: (Date.now() - t0) / 1000 };
    log(`target ready: ${pgv.rows[0].v.split(" on ")[0]}, ${tgt.table} ${pgv.rows[0].tbl}`);

    driver = new ScanDriver(tgt.server.superuserUrl(tgt.database), tgt.server.dataDir, [tgt.table, tgt.smallTable], new Date(started).toISOString().slice(11, 19).replace(/:/g, ""));
    await driver.open();
    const scans = driver;

    const A = await startInflight({ appDir: APP, name: "A (10/s)", role: ROLES.a, url: tgt.urlFor(ROLES.a), sampleMs: 100, window: `${CFG.windowMin}m`, keepRuns: true, log });
    servers.push(A);
    const D = await startInflight({ appDir: APP, name: "D (1/s)", role: ROLES.d, url: tgt.urlFor(ROLES.d), sampleMs: 1000, window: `${CFG.windowMin}m`, keepRuns: true, log });
    servers.push(D);
    const rssAStart = rssBytes(A.pid);

    // ------------------------------------------- 1. scans, peers beside inflight
    await phase("1 scans", async () => {
      // inflight 10/s (A) and 1/s (D), pg_activity 0.5 s and pgbench 10/s beside them
      const sqlFile = path.join(TMP, "activity_aios.pgbench.sql");
      const sql = readFileSync(path.join(ROOT, "sql", "activity_aios.sql"), "utf8").trimEnd();
      writeFileSync(sqlFile, sql.endsWith(";") ? sql + "\n" : sql + ";\n");
      const csv = path.join(TMP, "pg_activity.csv");
      rmSync(csv, { force: true });
      const pga = startPgActivity({ port: tgt.server.port, database: tgt.database, role: ROLES.pga, password: tgt.passwordOf(ROLES.pga) }, csv);
      peers.push(pga);
      // the statement bare, and its parts for context (each ~10/s on one connection)
      const parts = {
        // the function under the view, without its joins to pg_database and pg_authid
        activityFn: `SELECT /* bench part: activityFn */ s.pid, s.leader_pid, s.backend_type, s.state, s.wait_event_type, s.wait_event, s.query_id::text, s.query_start, s.datid, s.usesysid, left(s.query, 2000) FROM pg_catalog.pg_stat_get_activity(NULL::integer) s WHERE s.pid <> pg_catalog.pg_backend_pid();`,
        activity: `SELECT /* bench part: activity */ a.pid, a.leader_pid, a.backend_type, a.state, a.wait_event_type, a.wait_event, a.query_id::text, a.query_start, a.datname, a.usename, left(a.query, 2000) FROM pg_catalog.pg_stat_activity a WHERE a.pid <> pg_catalog.pg_backend_pid();`,
        aios: `SELECT /* bench part: aios */ pid, json_agg(json_build_array(state, operation, length, f_sync, target_desc)) FROM pg_catalog.pg_aios GROUP BY pid;`,
        select1: `SELECT /* bench part: select1 */ 1;`,
      };
      const partFiles = Object.entries(parts).map(([name, text]) => {
        const file = path.join(TMP, `part-${name}.pgbench.sql`);
        writeFileSync(file, text + "\n");
        return file;
      });
      const pgb = startPgbench({ port: tgt.server.port, database: tgt.database, role: ROLES.pgbench, password: tgt.passwordOf(ROLES.pgbench) }, [sqlFile, ...partFiles], 50, 3600);
      peers.push(pgb);
      await sleep(3000);
      const roles = Object.values(ROLES);
      // quiet first: no scans, the same observers
      const q0 = await pgssSnapshot(tgt.admin, roles);
      const cpuQ0 = await cpuOfRole(tgt, ROLES.a, "inflight");
      const qFrom = Date.now();
      log(`quiet: ${CFG.quietSeconds} s without scans`);
      await sleep(CFG.quietSeconds * 1000);
      const s0 = await pgssSnapshot(tgt.admin, roles);
      const qSeconds = (Date.now() - qFrom) / 1000;
      const cpuQ1 = cpuQ0.pid ? cpuSeconds(cpuQ0.pid) : null;
      const quietA = pgssDelta(q0, s0, ROLES.a);
      const quietPgb = pgssDelta(q0, s0, ROLES.pgbench);
      const quietPga = pgssDelta(q0, s0, ROLES.pga);
      const partsOf = (d: ReturnType<typeof pgssDelta>) =>
        Object.fromEntries(
          Object.keys(parts).map((name) => {
            const st = d.statements.find((x) => x.query.includes(`bench part: ${name} */`));
            return [name, st && st.calls ? r3(st.totalExecMs / st.calls) : null];
          }),
        );
      const quiet = {
        partsMeanMs: partsOf(quietPgb),
        seconds: qSeconds,
        inflightMeanMs: quietA.samplingCalls ? r3(quietA.samplingExecMs / quietA.samplingCalls) : null,
        pgbenchMeanMs: quietPgb.samplingCalls ? r3(quietPgb.samplingExecMs / quietPgb.samplingCalls) : null,
        inflightCalls: quietA.samplingCalls,
        pgbenchCalls: quietPgb.samplingCalls,
        serverMsPerSecond10: r3(quietA.totalExecMs / qSeconds),
        statements10: quietA.statements,
        backendCpu10: cpuQ0.cpu !== null && cpuQ1 !== null ? r5((cpuQ1 - cpuQ0.cpu) / qSeconds) : null,
        pgActivityMsPerSecond: r3(quietPga.totalExecMs / qSeconds),
      };
      log(`quiet: ${JSON.stringify(quiet).slice(0, 300)}`);
      const cpuA0 = await cpuOfRole(tgt, ROLES.a, "inflight");
      const cpuPga0 = await cpuOfRole(tgt, ROLES.pga);
      const cpuPgb0 = await cpuOfRole(tgt, ROLES.pgbench);
      const srvCpuA0 = cpuSeconds(A.pid);
      const iA0 = await A.info();
      const iD0 = await D.info();
      const from = Date.now();
      scans.phase = "scans";
      log(`cold scans for ${CFG.scanSeconds} s`);
      const loop = scans.start();
      await sleep(CFG.scanSeconds * 1000);
      await scans.stop();
      await loop;
      const to = Date.now();
      const s1 = await pgssSnapshot(tgt.admin, roles);
      const cpuA1 = cpuA0.pid ? cpuSeconds(cpuA0.pid) : null;
      const cpuPga1 = cpuPga0.pid ? cpuSeconds(cpuPga0.pid) : null;
      const cpuPgb1 = cpuPgb0.pid ? cpuSeconds(cpuPgb0.pid) : null;
      const srvCpuA1 = cpuSeconds(A.pid);
      const iA1 = await A.info();
      const iD1 = await D.info();
      const seconds = (to - from) / 1000;
      await pga.stop();
      await pgb.stop();
      if (pga.child.exitCode !== null && pga.child.exitCode !== 0) errors.push(`pg_activity exited ${pga.child.exitCode}: ${pga.output().slice(-500)}`);

      const dA = pgssDelta(s0, s1, ROLES.a);
      const dD = pgssDelta(s0, s1, ROLES.d);
      const dPgb = pgssDelta(s0, s1, ROLES.pgbench);
      const dPga = pgssDelta(s0, s1, ROLES.pga);
      const inflightMean = dA.samplingCalls ? dA.samplingExecMs / dA.samplingCalls : null;
      const pgbenchMean = dPgb.samplingCalls ? dPgb.samplingExecMs / dPgb.samplingCalls : null;
      const cpuShare = (a: number | null | undefined, b: number | null | undefined) => (a != null && b != null ? (b - a) / seconds : null);
      results.fig1 = {
        seconds,
        samplingStatement: {
          inflightCalls: dA.samplingCalls,
          inflightMeanMs: r3(inflightMean),
          pgbenchCalls: dPgb.samplingCalls,
          pgbenchMeanMs: r3(pgbenchMean),
          ratio: inflightMean && pgbenchMean ? r3(inflightMean / pgbenchMean) : null,
        },
        serverMsPerSecond10: r3(dA.totalExecMs / seconds),
        statementsPerSecond10: r3(dA.calls / seconds),
        statements10: dA.statements,
        serverMsPerSecond1: r3(dD.totalExecMs / seconds),
        backendCpu10: { pid: cpuA0.pid, shareOfCore: r5(cpuShare(cpuA0.cpu, cpuA1)) },
        serverProcessCpu10: r5(cpuShare(srvCpuA0, srvCpuA1)),
        pgbenchBackendCpu: r5(cpuShare(cpuPgb0.cpu, cpuPgb1)),
        pgActivityBackendCpu: r5(cpuShare(cpuPga0.cpu, cpuPga1)),
        partsMeanMs: partsOf(dPgb),
        quiet,
      };

      // figure 2 at 10/s, over the scans
      const expectedA = (to - from) / 100;
      const ticksA = A.viewer.ticks.filter((k) => k.t >= from && k.t < to);
      results.fig2 = {
        rates: [
          {
            rate: 10,
            sampleMs: 100,
            seconds,
            expected: Math.round(expectedA),
            samples: iA1.samples - iA0.samples,
            missed: iA1.missed - iA0.missed,
            achievedShare: (iA1.samples - iA0.samples) / expectedA,
            sseTicks: ticksA.length,
            sseShare: ticksA.length / expectedA,
            during: "cold scans, beside D (1/s), pg_activity and pgbench",
          },
        ],
        oneHz: { samples: iD1.samples - iD0.samples, expected: Math.round((to - from) / 1000) },
      };

      // figure 4 at 10/s: the bench's own SSE client on A
      const fresh = ticksA.map((k) => k.at - k.t);
      results.fig4 = { oneViewer: { ticks: fresh.length, p50: r3(quantile(fresh, 0.5)), p95: r3(quantile(fresh, 0.95)), max: fresh.length ? Math.max(...fresh) : null } };

      // figure 7: the short scans each observer saw
      const phaseScans = scans.scans.filter((s) => s.phase === "scans");
      const short = phaseScans.filter((s) => s.ms < CFG.shortScanMs);
      type Run = {
        query: string;
        pid: number;
        samples: number;
        aioSamples: number;
        aioWaitSamples: number;
        readWaitSamples: number;
        syncSamples: number;
        cpuSamples: number;
        startedAt: number;
        verdict: string;
      };
      const runsA = (await A.json<{ queries: Run[] }>("/api/targets/bench/window")).queries;
      const runsD = (await D.json<{ queries: Run[] }>("/api/targets/bench/window")).queries;
      const seenBy = (runs: Run[], s: ScanRecord) => {
        const mine = runs.filter((r) => r.pid === s.pid && r.query.includes(s.marker));
        return { sampled: mine.some((r) => r.samples > 0), aio: mine.some((r) => r.aioSamples > 0) };
      };
      // cross-check from the stream: a tick during the scan with async handles of its pid
      const tickSeen = (v: SseViewer, s: ScanRecord) => v.ticks.some((k) => k.t >= s.start && k.t <= s.end && (k.aioPids ?? []).includes(s.pid));
      const pgaRows = readPgActivityCsv(csv);
      const pgaShown = (s: ScanRecord) => pgaRows.some((r) => r.query.includes(s.marker));
      const pgaWait = (s: ScanRecord) => pgaRows.some((r) => r.query.includes(s.marker) && r.wait === "Y");
      const count = (f: (s: ScanRecord) => boolean) => short.filter(f).length;
      const seen10 = count((s) => seenBy(runsA, s).aio);
      const seen1 = count((s) => seenBy(runsD, s).aio);
      const shownPga = count(pgaShown);
      const durations = short.map((s) => s.ms);
      results.fig7 = {
        scans: phaseScans.length,
        short: short.length,
        shortMsP50: r3(quantile(durations, 0.5)),
        shortMsMin: durations.length ? r3(Math.min(...durations)) : null,
        shortMsMax: durations.length ? r3(Math.max(...durations)) : null,
        longer: phaseScans.length - short.length,
        at10: { aio: seen10, sampled: count((s) => seenBy(runsA, s).sampled), fromTicks: count((s) => tickSeen(A.viewer, s)), share: short.length ? seen10 / short.length : null },
        at1: { aio: seen1, sampled: count((s) => seenBy(runsD, s).sampled), fromTicks: count((s) => tickSeen(D.viewer, s)), share: short.length ? seen1 / short.length : null },
        missedAt10: short
          .filter((s) => !seenBy(runsA, s).aio)
          .map((s) => {
            const run = runsA.find((r) => r.pid === s.pid && r.query.includes(s.marker));
            return {
              marker: s.marker,
              table: s.table,
              ms: r3(s.ms),
              samples: run?.samples ?? 0,
              cpuSamples: run?.cpuSamples ?? 0,
              aioWaitSamples: run?.aioWaitSamples ?? 0,
              readWaitSamples: run?.readWaitSamples ?? 0,
              syncSamples: run?.syncSamples ?? 0,
              verdict: run?.verdict ?? null,
            };
          }),
        byDuration: [
          [0, 250],
          [250, 500],
          [500, 1000],
        ].map(([lo, hi]) => {
          const group = short.filter((s) => s.ms >= lo && s.ms < hi);
          const share = (f: (s: ScanRecord) => boolean) => (group.length ? r3(group.filter(f).length / group.length) : null);
          return {
            ms: `${lo}-${hi}`,
            scans: group.length,
            at10: share((s) => seenBy(runsA, s).aio),
            at1: share((s) => seenBy(runsD, s).aio),
            pgActivity: share(pgaShown),
          };
        }),
        byTable: [...new Set(short.map((s) => s.table))].map((table) => {
          const group = short.filter((s) => s.table === table);
          const ms = group.map((s) => s.ms);
          return { table, scans: group.length, msP50: r3(quantile(ms, 0.5)), at10: group.filter((s) => seenBy(runsA, s).aio).length, at1: group.filter((s) => seenBy(runsD, s).aio).length, pgActivity: group.filter(pgaShown).length };
        }),
      };

      // figure 8: pg_activity beside inflight
      const inflightMsPerS = dA.totalExecMs / seconds;
      const pgaMsPerS = dPga.totalExecMs / seconds;
      const pgaShare = short.length ? shownPga / short.length : null;
      const share10 = short.length ? seen10 / short.length : null;
      results.fig8 = {
        pgActivity: {
          version: (results.tools as Json).pg_activity,
          refreshS: CFG.pgActivityRefreshS,
          serverMsPerSecond: r3(pgaMsPerS),
          statementsPerSecond: r3(dPga.calls / seconds),
          statements: dPga.statements.slice(0, 12),
          csvRows: pgaRows.length,
          shortScansShown: shownPga,
          shortScansShownWaiting: count(pgaWait),
          share: pgaShare,
        },
        inflight10: { serverMsPerSecond: r3(inflightMsPerS), share: share10 },
        ratios: {
          serverTime: pgaMsPerS > 0 ? r3(inflightMsPerS / pgaMsPerS) : null,
          shortScansSeen: pgaShare ? r3((share10 ?? 0) / pgaShare) : null,
        },
      };
      log(`fig1 ${JSON.stringify(results.fig1).slice(0, 400)}`);
      log(`fig7 short ${short.length}: 10/s ${seen10}, 1/s ${seen1}, pg_activity ${shownPga}`);
    });

    // ------------------------------------------ 2. viewers; memory server E
    await phase("2 viewers", async () => {
      // A with 1, then 50 SSE viewers; the memory server E starts
      scans.phase = "background";
      void scans.start();
      const E = await startInflight({ appDir: APP, name: "E (10/s, 60 s window)", role: ROLES.e, url: tgt.urlFor(ROLES.e), sampleMs: 100, window: `${CFG.memWindowS}s`, log });
      servers.push(E);
      memoryTask = (async () => {
        const first = E.viewer.ticks[0]?.t ?? E.watchedSince;
        // RSS every second; GC makes single readings jump by 10-20%, so each
        // figure is the median of the 10 s up to its moment, with the range
        const series: { s: number; rss: number | null }[] = [];
        const at = (sec: number) => first + sec * 1000;
        // past the figure's two moments E keeps running (and being read)
        // until the browser phase: a longer look at whether memory stays flat
        for (let sec = 1; sec <= 2 * CFG.memWindowS || !stopMemory; sec++) {
          await sleep(Math.max(0, at(sec) - Date.now()));
          series.push({ s: sec, rss: rssBytes(E.pid) });
        }
        const lastSec = series[series.length - 1].s;
        const around = (sec: number) => series.filter((x) => x.s > sec - 10 && x.s <= sec && x.rss !== null).map((x) => x.rss as number);
        const span = (a: number, b: number) => series.filter((x) => x.s > a && x.s <= b && x.rss !== null).map((x) => x.rss as number);
        const rssFill = quantile(around(CFG.memWindowS), 0.5);
        const rssAfter = quantile(around(2 * CFG.memWindowS), 0.5);
        const firstMin = span(0, CFG.memWindowS);
        const secondMin = span(CFG.memWindowS, 2 * CFG.memWindowS);
        const info = await E.info();
        results.fig5 = {
          window: `${CFG.memWindowS}s`,
          pid: E.pid,
          rssAtFill: rssFill,
          rssAfter,
          growth: rssFill && rssAfter ? (rssAfter - rssFill) / rssFill : null,
          pointReadings: { atFill: series.find((x) => x.s === CFG.memWindowS)?.rss ?? null, after: series.find((x) => x.s === 2 * CFG.memWindowS)?.rss ?? null },
          rangeFirstWindow: firstMin.length ? [Math.min(...firstMin), Math.max(...firstMin)] : null,
          rangeSecondWindow: secondMin.length ? [Math.min(...secondMin), Math.max(...secondMin)] : null,
          late: { afterSeconds: lastSec, rss: quantile(around(lastSec), 0.5), growthFromFill: rssFill ? ((quantile(around(lastSec), 0.5) ?? 0) - rssFill) / rssFill : null, range: (() => { const l = span(lastSec - 60, lastSec); return l.length ? [Math.min(...l), Math.max(...l)] : null; })() },
          series: series.filter((x) => x.s % 5 === 0),
          samples: info.samples,
          serverA: { window: `${CFG.windowMin}m`, rssAtStart: rssAStart },
        };
        log(`fig5 rss at fill ${rssFill}, after ${rssAfter}`);
        await E.stop();
        servers.splice(servers.indexOf(E), 1);
        save();
      })().catch((err) => {
        errors.push(`memory: ${(err as Error).message}`);
      });

      const roles = [ROLES.a];
      const bytes0 = new Map(A.viewer.bytes);
      const p0 = await pgssSnapshot(tgt.admin, roles);
      const srv0 = cpuSeconds(A.pid);
      const me0 = process.cpuUsage();
      const v0 = Date.now();
      await sleep(CFG.viewerSeconds * 1000);
      const p1 = await pgssSnapshot(tgt.admin, roles);
      const srv1 = cpuSeconds(A.pid);
      const me1 = process.cpuUsage();
      const v1 = Date.now();
      // what one viewer receives, by event, per second
      const bytesPerSecond = Object.fromEntries([...A.viewer.bytes].map(([k, v]) => [k, Math.round((v - (bytes0.get(k) ?? 0)) / ((v1 - v0) / 1000))]));
      const one = pgssDelta(p0, p1, ROLES.a);
      for (let i = 0; i < CFG.extraViewers; i++) {
        const v = new SseViewer(A.streamUrl());
        await v.open();
        viewers.push(v);
      }
      await sleep(2000);
      const infoMany = await A.info();
      const p2 = await pgssSnapshot(tgt.admin, roles);
      const srv2 = cpuSeconds(A.pid);
      const me2 = process.cpuUsage();
      const infoMany0 = await A.info();
      const v2 = Date.now();
      await sleep(CFG.viewerSeconds * 1000);
      const p3 = await pgssSnapshot(tgt.admin, roles);
      const srv3 = cpuSeconds(A.pid);
      const me3 = process.cpuUsage();
      const infoMany1 = await A.info();
      const v3 = Date.now();
      const many = pgssDelta(p2, p3, ROLES.a);
      const fresh = [A.viewer, ...viewers].flatMap((v) => v.ticks.filter((k) => k.t >= v2 && k.t < v3).map((k) => k.at - k.t));
      const perViewer = [A.viewer, ...viewers].map((v) => v.ticks.filter((k) => k.t >= v2 && k.t < v3).length);
      for (const v of viewers) v.close();
      viewers.length = 0;
      const oneRate = one.calls / ((v1 - v0) / 1000);
      const manyRate = many.calls / ((v3 - v2) / 1000);
      results.fig3 = {
        oneViewer: { seconds: (v1 - v0) / 1000, calls: one.calls, perSecond: r3(oneRate), serverMsPerSecond: r3(one.totalExecMs / ((v1 - v0) / 1000)) },
        fiftyViewers: {
          seconds: (v3 - v2) / 1000,
          viewersReported: infoMany.viewers,
          calls: many.calls,
          perSecond: r3(manyRate),
          serverMsPerSecond: r3(many.totalExecMs / ((v3 - v2) / 1000)),
          ticksPerViewerMin: Math.min(...perViewer),
          ticksPerViewerMax: Math.max(...perViewer),
        },
        ratio: oneRate ? r3(manyRate / oneRate) : null,
        bytesPerViewerPerSecond: bytesPerSecond,
        serverProcessCpu: {
          oneViewer: srv0 !== null && srv1 !== null ? r5((srv1 - srv0) / ((v1 - v0) / 1000)) : null,
          fiftyViewers: srv2 !== null && srv3 !== null ? r5((srv3 - srv2) / ((v3 - v2) / 1000)) : null,
        },
        /** the bench's own process (the 50 SSE clients read everything sent) */
        benchProcessCpu: {
          oneViewer: r5((me1.user + me1.system - me0.user - me0.system) / 1000 / (v1 - v0)),
          fiftyViewers: r5((me3.user + me3.system - me2.user - me2.system) / 1000 / (v3 - v2)),
        },
        samplesWithFifty: { samples: infoMany1.samples - infoMany0.samples, missed: infoMany1.missed - infoMany0.missed },
      };
      (results.fig4 as Json).fiftyViewers = { ticks: fresh.length, p50: r3(quantile(fresh, 0.5)), p95: r3(quantile(fresh, 0.95)), max: fresh.length ? Math.max(...fresh) : null };
      log(`fig3 ${JSON.stringify(results.fig3)}`);
    });

    // ----------------------------------------------------- 3. 50/s and 100/s
    await phase("3 rates", async () => {
      // B (50/s), then C (100/s), during scans
      for (const [name, role, sampleMs] of [
        ["B (50/s)", ROLES.b, 20],
        ["C (100/s)", ROLES.c, 10],
      ] as const) {
        const srv = await startInflight({ appDir: APP, name, role, url: tgt.urlFor(role), sampleMs, window: `${CFG.windowMin}m`, log });
        servers.push(srv);
        try {
          await sleep(3000);
          const p0 = await pgssSnapshot(tgt.admin, [role]);
          const c0 = await cpuOfRole(tgt, role, "inflight");
          const sc0 = cpuSeconds(srv.pid);
          const m = await measureRate(srv, CFG.rateSeconds);
          const c1 = c0.pid ? cpuSeconds(c0.pid) : null;
          const sc1 = cpuSeconds(srv.pid);
          const p1 = await pgssSnapshot(tgt.admin, [role]);
          const d = pgssDelta(p0, p1, role);
          const rate = {
            ...m,
            during: "cold scans in the background (A at 10/s watching too)",
            backendCpu: c0.cpu !== null && c1 !== null ? r5((c1 - c0.cpu) / m.seconds) : null,
            serverProcessCpu: sc0 !== null && sc1 !== null ? r5((sc1 - sc0) / m.seconds) : null,
            serverMsPerSecond: r3(d.totalExecMs / m.seconds),
            samplingMeanMs: d.samplingCalls ? r3(d.samplingExecMs / d.samplingCalls) : null,
          };
          ((results.fig2 as Json).rates as Json[]).push(rate);
          log(`fig2 ${name}: ${pct(m.achievedShare)}% of ticks, backend CPU ${rate.backendCpu}`);
        } finally {
          await srv.stop();
          servers.splice(servers.indexOf(srv), 1);
        }
      }
    });

    // ----------------------------------- 4. browser on A's full window (last)
    await phase("4 browser", async () => {
      // Chromium on A's full window
      const fullAt = A.watchedSince + CFG.windowMin * 60_000 + 5_000;
      if (Date.now() < fullAt) {
        log(`waiting ${Math.round((fullAt - Date.now()) / 1000)} s for A's ${CFG.windowMin}-minute window to fill at 10/s (scans keep running)`);
        while (Date.now() < fullAt) await sleep(Math.min(30_000, fullAt - Date.now()));
      }
      // the memory server E stops here: nothing else runs beside the browser
      stopMemory = true;
      await memoryTask;
      const info = await A.info();
      const rssFull = rssBytes(A.pid);
      if (results.fig5) ((results.fig5 as Json).serverA as Json).rssFullWindow = rssFull;
      else results.fig5 = { serverA: { window: `${CFG.windowMin}m`, rssAtStart: rssAStart, rssFullWindow: rssFull } };
      const run = async (variant: "page" | "desktop", seconds: number, profileSeconds: number): Promise<BrowserResult | { error: string }> => {
        try {
          return await measureBrowser({
            baseUrl: A.server.url,
            targetId: "bench",
            seconds,
            settleSeconds: CFG.browserSettleSeconds,
            executablePath: env.PLAYWRIGHT_CHROMIUM === "bundled" ? undefined : (env.CHROMIUM_PATH ?? "/usr/bin/chromium"),
            variant,
            screenshot: path.join(TMP, `page-${variant}.png`),
            profileSeconds,
            log,
          });
        } catch (err) {
          return { error: (err as Error).message.split("\n").slice(0, 6).join(" ") };
        }
      };
      // every chart on screen (the figure), then a plain desktop view for context
      const browser = await run("page", CFG.browserSeconds, CFG.profileSeconds);
      const desktop = await run("desktop", CFG.desktopSeconds, 0);
      results.fig6 = { ...browser, desktop, watchedMinutes: r3((Date.now() - A.watchedSince) / 60_000), samplesA: info.samples, missedA: info.missed };
      if ("freshnessP50" in browser) (results.fig4 as Json).browser = { ticks: browser.ticks, p50: r3(browser.freshnessP50), p95: r3(browser.freshnessP95) };
      log(`fig6 ${JSON.stringify(results.fig6).slice(0, 600)}`);
    });

    // whole-run view of A: every tick it took vs the slots since it was watched
    const iA = await A.info();
    results.serverA = { samples: iA.samples, missed: iA.missed, watchedSeconds: (Date.now() - A.watchedSince) / 1000, scansTotal: scans.scans.length, scanErrors: scans.errors.slice(0, 5) };
  } finally {
    stopMemory = true;
    for (const v of viewers) v.close();
    await driver?.close().catch(() => undefined);
    for (const p of peers) await p.stop().catch(() => undefined);
    for (const s of servers) await s.stop().catch(() => undefined);
    if (target) {
      await target.admin.end().catch(() => undefined);
      await target.server.stop("fast").catch((err) => errors.push(`pg stop: ${(err as Error).message}`));
    }
    results.finishedAt = new Date().toISOString();
    results.durationSeconds = Math.round((Date.now() - started) / 1000);
    // from `npm run bench` itself: the build check and vitest's start too
    if (env.BENCH_T0) results.totalSeconds = Math.round((Date.now() - Number(env.BENCH_T0)) / 1000);
    noteLoad("end");
    save();
    writeReport(results, { root: ROOT, quick: QUICK || !measured() });
    unlock();
    log(`done in ${results.durationSeconds} s; errors: ${errors.length}`);
  }
  if (errors.length) throw new Error(`the bench finished with ${errors.length} error(s):\n${errors.join("\n")}`);
});
