// Phase 1: A (10/s) and D (1/s) watch while pg_activity (every 0.5 s) and
// pgbench (inflight's two sampling statements, activity.sql and aios.sql,
// bare, with the view and SELECT 1 for context, ~10/s each) run beside
// them; first a quiet stretch without scans, then cold scans
// -> figures 1, 2 (10/s), 4 (one viewer), 7 and 8.
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Inflight, TargetInfoLite } from "../lib/inflight";
import { metricSum } from "../lib/metrics-text";
import { startPgActivity, startPgbench, type Peer } from "../lib/peers";
import { meanMs, perStatement, pgssDelta, type PgssSnapshot, type RoleDelta } from "../lib/pgss";
import { cpuSeconds } from "../lib/proc";
import { PGBENCH_MARKERS, PGBENCH_NAMES, pgbenchScripts } from "../lib/sampling-sql";
import { quantile, r3, r5, sleep } from "../lib/stats";
import type { TickArrival } from "../lib/sse";
import { cpuOfRole, pgssSnapshot } from "../lib/target";
import type { Json, PhaseContext } from "./context";
import { shortScansFigures } from "./short-scans";

export async function scansBesidePeers(ctx: PhaseContext): Promise<void> {
  const csv = path.join(ctx.paths.tmp, "pg_activity.csv");
  const peers = startPeers(ctx, csv);
  await sleep(3000);
  const { quiet, before } = await measureQuiet(ctx);
  const run = await runScans(ctx, peers);
  const { results, roles, log } = ctx;
  const dA = pgssDelta(before, run.after, roles.a);
  const dPga = pgssDelta(before, run.after, roles.pga);
  results.fig1 = figure1(ctx, run, before, dA, quiet);
  const ticksA = ctx.A.viewer.ticks.filter((k) => k.t >= run.from && k.t < run.to);
  const burstA = run.extraA0 !== null && run.extraA1 !== null ? run.extraA1 - run.extraA0 : null;
  results.fig2 = figure2(run, ticksA, burstA);
  // figure 4 at 10/s: the bench's own SSE client on A
  const fresh = ticksA.map((k) => k.at - k.t);
  results.fig4 = {
    oneViewer: {
      ticks: fresh.length,
      p50: r3(quantile(fresh, 0.5)),
      p95: r3(quantile(fresh, 0.95)),
      max: fresh.length ? Math.max(...fresh) : null,
    },
  };
  const { fig7, fig8, summary } = await shortScansFigures(ctx, csv, { seconds: run.seconds, dA, dPga, burstA });
  results.fig7 = fig7;
  results.fig8 = fig8;
  log(`fig1 ${JSON.stringify(results.fig1).slice(0, 400)}`);
  log(`fig7 ${summary}`);
}

interface Peers {
  pga: Peer;
  pgb: Peer;
}

/** pg_activity logging what it shows to `csv`, and pgbench running inflight's sampling statements bare (and the view, and SELECT 1). */
function startPeers(ctx: PhaseContext, csv: string): Peers {
  const { target: tgt, roles, paths, running } = ctx;
  rmSync(csv, { force: true });
  const pga = startPgActivity({ port: tgt.server.port, database: tgt.database, role: roles.pga, password: tgt.passwordOf(roles.pga) }, csv);
  running.peers.push(pga);
  const files = Object.entries(pgbenchScripts()).map(([name, text]) => {
    const file = path.join(paths.tmp, `bare-${name}.pgbench.sql`);
    writeFileSync(file, text + "\n");
    return file;
  });
  // ~10/s of each, picked at random
  const pgb = startPgbench(
    { port: tgt.server.port, database: tgt.database, role: roles.pgbench, password: tgt.passwordOf(roles.pgbench) },
    files,
    10 * files.length,
    3600,
  );
  running.peers.push(pgb);
  return { pga, pgb };
}

/** Mean execution time (ms) of each statement pgbench ran, from its pg_stat_statements rows. */
function bareMeans(d: RoleDelta) {
  return Object.fromEntries(PGBENCH_NAMES.map((name) => [name, r3(meanMs(d, PGBENCH_MARKERS[name]))]));
}

/** inflight's sampling statements against the same files bare: calls, means and their ratio. */
function sideBySide(inflight: RoleDelta, bare: RoleDelta) {
  return Object.fromEntries(
    (["activity", "aios"] as const).map((file) => {
      const mark = PGBENCH_MARKERS[file];
      const a = meanMs(inflight, file);
      const b = meanMs(bare, mark);
      return [
        file,
        {
          inflightCalls: inflight.byFile[file]?.calls ?? 0,
          inflightMeanMs: r3(a),
          pgbenchCalls: bare.byFile[mark]?.calls ?? 0,
          pgbenchMeanMs: r3(b),
          ratio: a !== null && b ? r3(a / b) : null,
        },
      ];
    }),
  );
}

/** The burst samples a server has taken so far (/metrics); null when it cannot say. */
async function extraSamples(srv: Inflight): Promise<number | null> {
  return metricSum(await srv.metrics().catch(() => ""), "inflight_samples_extra_total");
}

/** The same observers on a target without scans; `before` is where the scans' counting starts. */
async function measureQuiet(ctx: PhaseContext): Promise<{ quiet: Json; before: PgssSnapshot }> {
  const { target: tgt, roles, cfg, log } = ctx;
  const watched = Object.values(roles);
  const q0 = await pgssSnapshot(tgt.admin, watched);
  const cpuQ0 = await cpuOfRole(tgt, roles.a, "inflight");
  const qFrom = Date.now();
  log(`quiet: ${cfg.quietSeconds} s without scans`);
  await sleep(cfg.quietSeconds * 1000);
  const before = await pgssSnapshot(tgt.admin, watched);
  const qSeconds = (Date.now() - qFrom) / 1000;
  const cpuQ1 = cpuQ0.pid ? cpuSeconds(cpuQ0.pid) : null;
  const quietA = pgssDelta(q0, before, roles.a);
  const quietPgb = pgssDelta(q0, before, roles.pgbench);
  const quietPga = pgssDelta(q0, before, roles.pga);
  const quiet = {
    bareMeanMs: bareMeans(quietPgb),
    seconds: qSeconds,
    sampling: sideBySide(quietA, quietPgb),
    serverMsPerSecond10: r3(quietA.totalExecMs / qSeconds),
    byStatement10: perStatement(quietA, qSeconds),
    statements10: quietA.statements,
    backendCpu10: cpuQ0.cpu !== null && cpuQ1 !== null ? r5((cpuQ1 - cpuQ0.cpu) / qSeconds) : null,
    pgActivityMsPerSecond: r3(quietPga.totalExecMs / qSeconds),
  };
  log(`quiet: ${JSON.stringify(quiet).slice(0, 300)}`);
  return { quiet, before };
}

interface ScanRun {
  from: number;
  to: number;
  seconds: number;
  /** pg_stat_statements right after the scans */
  after: PgssSnapshot;
  // CPU seconds before (0) and after (1) the scans: A's, pg_activity's and pgbench's backends, A's server process
  cpuA0: CpuReading;
  cpuA1: number | null;
  cpuPga0: CpuReading;
  cpuPga1: number | null;
  cpuPgb0: CpuReading;
  cpuPgb1: number | null;
  srvCpuA0: number | null;
  srvCpuA1: number | null;
  /** A's burst samples before and after (/metrics) */
  extraA0: number | null;
  extraA1: number | null;
  iA0: TargetInfoLite;
  iA1: TargetInfoLite;
  iD0: TargetInfoLite;
  iD1: TargetInfoLite;
}

type CpuReading = Awaited<ReturnType<typeof cpuOfRole>>;

/** The cold scans for cfg.scanSeconds, the counters read on both sides; the peers are stopped after them. */
async function runScans(ctx: PhaseContext, { pga, pgb }: Peers): Promise<ScanRun> {
  const { target: tgt, roles, cfg, scans, A, D, log, errors } = ctx;
  const cpuA0 = await cpuOfRole(tgt, roles.a, "inflight");
  const cpuPga0 = await cpuOfRole(tgt, roles.pga);
  const cpuPgb0 = await cpuOfRole(tgt, roles.pgbench);
  const srvCpuA0 = cpuSeconds(A.pid);
  const extraA0 = await extraSamples(A);
  const iA0 = await A.info();
  const iD0 = await D.info();
  const from = Date.now();
  scans.phase = "scans";
  log(`cold scans for ${cfg.scanSeconds} s`);
  const loop = scans.start();
  await sleep(cfg.scanSeconds * 1000);
  await scans.stop();
  await loop;
  const to = Date.now();
  const after = await pgssSnapshot(tgt.admin, Object.values(roles));
  const cpuA1 = cpuA0.pid ? cpuSeconds(cpuA0.pid) : null;
  const cpuPga1 = cpuPga0.pid ? cpuSeconds(cpuPga0.pid) : null;
  const cpuPgb1 = cpuPgb0.pid ? cpuSeconds(cpuPgb0.pid) : null;
  const srvCpuA1 = cpuSeconds(A.pid);
  const extraA1 = await extraSamples(A);
  const iA1 = await A.info();
  const iD1 = await D.info();
  // pgbench runs for an hour unless stopped: an exit before now is a failure (its figures would be empty)
  if (pgb.child.exitCode !== null) errors.push(`pgbench exited during the scans (${pgb.child.exitCode}): ${pgb.output().slice(-500)}`);
  await pga.stop();
  await pgb.stop();
  if (pga.child.exitCode !== null && pga.child.exitCode !== 0)
    errors.push(`pg_activity exited ${pga.child.exitCode}: ${pga.output().slice(-500)}`);
  return {
    from,
    to,
    seconds: (to - from) / 1000,
    after,
    cpuA0,
    cpuA1,
    cpuPga0,
    cpuPga1,
    cpuPgb0,
    cpuPgb1,
    srvCpuA0,
    srvCpuA1,
    extraA0,
    extraA1,
    iA0,
    iA1,
    iD0,
    iD1,
  };
}

/** Figure 1: what inflight's statements cost the target, beside the same files bare and its peers' backends. */
function figure1(ctx: PhaseContext, run: ScanRun, before: PgssSnapshot, dA: RoleDelta, quiet: Json): Json {
  const { roles } = ctx;
  const { seconds } = run;
  const dD = pgssDelta(before, run.after, roles.d);
  const dPgb = pgssDelta(before, run.after, roles.pgbench);
  const cpuShare = (a: number | null | undefined, b: number | null | undefined) => (a != null && b != null ? (b - a) / seconds : null);
  return {
    seconds,
    sampling: sideBySide(dA, dPgb),
    serverMsPerSecond10: r3(dA.totalExecMs / seconds),
    statementsPerSecond10: r3(dA.calls / seconds),
    byStatement10: perStatement(dA, seconds),
    statements10: dA.statements,
    serverMsPerSecond1: r3(dD.totalExecMs / seconds),
    backendCpu10: { pid: run.cpuA0.pid, shareOfCore: r5(cpuShare(run.cpuA0.cpu, run.cpuA1)) },
    serverProcessCpu10: r5(cpuShare(run.srvCpuA0, run.srvCpuA1)),
    pgbenchBackendCpu: r5(cpuShare(run.cpuPgb0.cpu, run.cpuPgb1)),
    pgActivityBackendCpu: r5(cpuShare(run.cpuPga0.cpu, run.cpuPga1)),
    bareMeanMs: bareMeans(dPgb),
    quiet,
  };
}

/**
 * Figure 2 at 10/s, over the scans: A's samples and SSE ticks against the
 * slots it had; D's at 1/s. The burst samples taken between the slots, which
 * /api/targets does not count, say so on the stream (tick.extra): the SSE
 * share is of the slots' ticks; the bursts the stream carried beside it.
 */
function figure2(run: ScanRun, ticksA: readonly TickArrival[], burstA: number | null): Json {
  const slotTicks = ticksA.filter((k) => !k.extra).length;
  const { from, to, seconds, iA0, iA1, iD0, iD1 } = run;
  const expectedA = (to - from) / 100;
  return {
    rates: [
      {
        rate: 10,
        sampleMs: 100,
        seconds,
        expected: Math.round(expectedA),
        samples: iA1.samples - iA0.samples,
        missed: iA1.missed - iA0.missed,
        achievedShare: (iA1.samples - iA0.samples) / expectedA,
        sseTicks: slotTicks,
        sseBurstTicks: ticksA.length - slotTicks,
        burstSamples: burstA,
        sseShare: slotTicks / expectedA,
        during: "cold scans, beside D (1/s), pg_activity and pgbench",
      },
    ],
    oneHz: { samples: iD1.samples - iD0.samples, expected: Math.round((to - from) / 1000) },
  };
}
