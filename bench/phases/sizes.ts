// Phase 0, before the rest starts (the machine as quiet as this run can
// make it): what watching costs against the server's size -> figure 9.
// One embedded PostgreSQL 18 data directory (.inflight/bench-sizes: the demo
// table and its 64 MB copy, seeded once), started four times, one size at a
// time: max_connections 100 and 1000 x io_max_concurrency 16 and 64. On
// each, one inflight at the default settings (INFLIGHT_BUDGET 5 ms/s) with
// one viewer: once its start has settled, a span with no query running,
// then cold scans (after a warm-up in which inflight learns pg_aios's cost
// from pg_stat_statements);
// then, inflight stopped, one bare read of each view under pgbench, as the
// issue measured them.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_BUDGET_MS } from "@/lib/server/collector/collector";
import { SIZES, type ServerSize } from "../lib/config";
import { startInflight, type Inflight } from "../lib/inflight";
import { metricBy, metricSum } from "../lib/metrics-text";
import { pgbenchLatencyMs, startPgbench } from "../lib/peers";
import { meanMs, pgssDelta } from "../lib/pgss";
import { cpuSeconds } from "../lib/proc";
import { shortScansSeen, type Run } from "../lib/runs";
import { BARE_NAMES, bareScripts, partMarker } from "../lib/sampling-sql";
import { ScanDriver } from "../lib/scans";
import { counterDelta, spanFigures } from "../lib/size-figures";
import { r3, sleep } from "../lib/stats";
import { cpuOfRole, pgssSnapshot, SIZES_DATA_DIR, startTarget, type BenchTarget } from "../lib/target";
import type { Bench, Json } from "./context";

export async function costBySize(bench: Bench): Promise<void> {
  const { cfg, results, errors, log } = bench;
  const sizes: Json[] = [];
  results.fig9 = { budgetMsPerSecond: DEFAULT_BUDGET_MS, bareRate: cfg.sizeBareRate, bareSeconds: cfg.sizeBareSeconds, sizes };
  for (const size of SIZES) {
    const label = `${size.maxConnections} x ${size.ioMaxConcurrency}`;
    try {
      sizes.push(await oneSize(bench, size, label));
    } catch (err) {
      errors.push(`sizes ${label}: ${(err as Error).stack ?? String(err)}`.slice(0, 2000));
      sizes.push({ ...size, label, error: (err as Error).message.split("\n")[0] });
    }
    log(`fig9 ${label}: ${JSON.stringify(sizes[sizes.length - 1]).slice(0, 400)}`);
    bench.save();
  }
}

async function oneSize(bench: Bench, size: ServerSize, label: string): Promise<Json> {
  const { cfg, roles, paths, running, log } = bench;
  const t0 = Date.now();
  const tgt = await startTarget({
    dataDir: SIZES_DATA_DIR,
    tableMb: cfg.tableMb,
    smallTableMb: cfg.smallTableMb,
    roles: [roles.size, roles.pgbench],
    settings: { max_connections: String(size.maxConnections), io_max_concurrency: String(size.ioMaxConcurrency) },
    log,
  });
  running.target = tgt;
  try {
    const inForce = await settingsInForce(tgt);
    const scans = new ScanDriver(
      tgt.server.superuserUrl(tgt.database),
      tgt.server.dataDir,
      [tgt.table, tgt.smallTable],
      `size${size.maxConnections}x${size.ioMaxConcurrency}`,
    );
    running.driver = scans;
    await scans.open();
    const srv = await startInflight({
      appDir: paths.app,
      name: `sizes ${label}`,
      role: roles.size,
      url: tgt.urlFor(roles.size),
      sampleMs: 100,
      window: "15m",
      log,
    });
    running.servers.push(srv);
    const startSeconds = (Date.now() - t0) / 1000;
    let idle: Json;
    let scanned: Json;
    // the budget in force, as the page says (started without INFLIGHT_BUDGET: the default)
    let budget: number | null = null;
    try {
      budget = (await srv.info()).cost.budgetMsPerSecond;
      await sleep(cfg.sizeSettleSeconds * 1000);
      log(`sizes ${label}: ${cfg.sizeIdleSeconds} s with no query running`);
      idle = await measureSpan(tgt, srv, roles.size, cfg.sizeIdleSeconds);
      scanned = await measureScans(bench, tgt, srv, scans, label);
    } finally {
      await scans.close();
      running.driver = null;
      await srv.stop();
      running.servers.splice(running.servers.indexOf(srv), 1);
    }
    const bare = await bareReads(bench, tgt, label);
    return {
      ...size,
      label,
      settingsInForce: inForce,
      startSeconds: r3(startSeconds),
      budgetMsPerSecond: budget,
      idle,
      scans: scanned,
      bare,
    };
  } finally {
    await tgt.admin.end().catch(() => undefined);
    await tgt.server.stop("fast");
    running.target = null;
  }
}

/** What the server was started with, as it says (a setting it ignored would make the figure another size's). */
async function settingsInForce(tgt: BenchTarget): Promise<Record<string, string>> {
  const { rows } = await tgt.admin.query<{ name: string; setting: string; unit: string | null }>(
    "SELECT name, setting, unit FROM pg_settings WHERE name IN ('max_connections', 'io_max_concurrency', 'shared_buffers', 'io_method', 'io_workers')",
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.unit ? `${r.setting} x ${r.unit}` : r.setting]));
}

/** Readings on both sides of `seconds`, and the span's figures. */
async function measureSpan(tgt: BenchTarget, srv: Inflight, role: string, seconds: number) {
  const read = async () => {
    const metrics = await srv.metrics().catch(() => "");
    return {
      at: Date.now(),
      pgss: await pgssSnapshot(tgt.admin, [role]),
      info: await srv.info(),
      extra: metricSum(metrics, "inflight_samples_extra_total"),
      cost: metrics ? metricBy(metrics, "inflight_target_cost_seconds_total", "statement") : null,
    };
  };
  const cpu0 = await cpuOfRole(tgt, role, "inflight");
  const a = await read();
  // pg_stat_statements every 2 s as well: the budget is to hold over any 20 s, not on average
  const marks: { at: number; ms: number }[] = [{ at: a.at, ms: 0 }];
  const end = a.at + seconds * 1000;
  while (Date.now() < end) {
    await sleep(Math.min(2000, end - Date.now()));
    marks.push({ at: Date.now(), ms: pgssDelta(a.pgss, await pgssSnapshot(tgt.admin, [role]), role).totalExecMs });
  }
  const b = await read();
  const cpu1 = cpu0.pid ? cpuSeconds(cpu0.pid) : null;
  const span = (b.at - a.at) / 1000;
  return {
    from: a.at,
    to: b.at,
    ...spanFigures({
      seconds: span,
      delta: pgssDelta(a.pgss, b.pgss, role),
      samples: b.info.samples - a.info.samples,
      missed: b.info.missed - a.info.missed,
      extraSamples: a.extra !== null && b.extra !== null ? b.extra - a.extra : null,
      costSeconds: a.cost && b.cost ? counterDelta(a.cost, b.cost) : null,
      page: b.info.cost,
      backendCpu: cpu0.cpu !== null && cpu1 !== null ? (cpu1 - cpu0.cpu) / span : null,
    }),
    worst20s: worstWindow(marks, 20_000),
  };
}

/** The most server ms per second over any span of about `ms` (from marks 2 s apart), and when; null under one span. */
export function worstWindow(
  marks: { at: number; ms: number }[],
  ms: number,
): { msPerSecond: number; from: number; seconds: number } | null {
  let worst: { msPerSecond: number; from: number; seconds: number } | null = null;
  let i = 0;
  for (let j = 1; j < marks.length; j++) {
    while (i + 1 < j && marks[j].at - marks[i + 1].at >= ms) i++;
    const span = marks[j].at - marks[i].at;
    if (span < ms) continue;
    const rate = ((marks[j].ms - marks[i].ms) / span) * 1000;
    if (!worst || rate > worst.msPerSecond) worst = { msPerSecond: r3(rate)!, from: marks[i].at, seconds: r3(span / 1000)! };
  }
  return worst;
}

/** Cold scans: a warm-up until pg_aios's exact cost is known (or cfg.sizeWarmupSeconds), then the span; which short scans were seen. */
async function measureScans(bench: Bench, tgt: BenchTarget, srv: Inflight, scans: ScanDriver, label: string) {
  const { cfg, roles, log } = bench;
  scans.phase = "sizes";
  const loop = scans.start();
  try {
    const until = Date.now() + cfg.sizeWarmupSeconds * 1000;
    while (Date.now() < until && !(await aiosCalibrated(srv))) await sleep(500);
    const calibrated = await aiosCalibrated(srv);
    log(
      `sizes ${label}: cold scans for ${cfg.sizeScanSeconds} s (pg_aios's cost ${calibrated ? "from pg_stat_statements" : "not yet from pg_stat_statements"})`,
    );
    const span = await measureSpan(tgt, srv, roles.size, cfg.sizeScanSeconds);
    await scans.stop();
    await loop;
    const runs = (await srv.json<{ queries: Run[] }>("/api/targets/bench/window")).queries;
    const seen = shortScansSeen(scans.scans, runs, { from: span.from, to: span.to, shortMs: cfg.shortScanMs });
    return {
      ...span,
      aiosCalibrated: calibrated,
      shortScans: { ...seen, share: r3(seen.share), shortMsP50: r3(seen.shortMsP50) },
      scanErrors: scans.errors.slice(0, 3),
    };
  } finally {
    await scans.stop();
  }
}

async function aiosCalibrated(srv: Inflight): Promise<boolean> {
  const info = await srv.info().catch(() => null);
  return Boolean(info?.cost.statements.some((s) => s.statement === "aios" && s.source === "pg_stat_statements"));
}

/** One bare read of each view (no handle in flight: nothing else runs), pgbench -M prepared, one client, at cfg.sizeBareRate a second. */
async function bareReads(bench: Bench, tgt: BenchTarget, label: string): Promise<Json> {
  const { cfg, roles, paths, running, log } = bench;
  const out: Json = {};
  for (const name of BARE_NAMES) {
    const file = path.join(paths.tmp, `size-${name}.pgbench.sql`);
    writeFileSync(file, bareScripts()[name] + "\n");
    const p0 = await pgssSnapshot(tgt.admin, [roles.pgbench]);
    const pgb = startPgbench(
      { port: tgt.server.port, database: tgt.database, role: roles.pgbench, password: tgt.passwordOf(roles.pgbench) },
      [file],
      cfg.sizeBareRate,
      cfg.sizeBareSeconds,
    );
    running.peers.push(pgb);
    await pgb.exited;
    running.peers.splice(running.peers.indexOf(pgb), 1);
    const d = pgssDelta(p0, await pgssSnapshot(tgt.admin, [roles.pgbench]), roles.pgbench);
    const marker = `part:${name}`;
    if (pgb.child.exitCode !== 0) throw new Error(`pgbench (${name}) exited ${pgb.child.exitCode}: ${pgb.output().slice(-300)}`);
    out[name] = {
      statement: bareScripts()[name].replace(`${partMarker(name)} `, ""),
      calls: d.byFile[marker]?.calls ?? 0,
      meanMs: r3(meanMs(d, marker)),
      pgbenchLatencyMs: pgbenchLatencyMs(pgb.output()),
    };
  }
  log(`sizes ${label}: bare reads ${JSON.stringify(out)}`);
  return out;
}
