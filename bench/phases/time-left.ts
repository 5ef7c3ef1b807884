// Figure 11, time left (issue 40): cold sequential scans alone and four at
// once, each scan's run looked at every 200 ms, and each look from a quarter
// of the scan on judged by the scan's real end as the bench's clock saw it
// (bench/lib/time-left.ts, the integration test's own measure). The watcher
// is inflight's collector at the shipped defaults (INFLIGHT_SAMPLE_MS 100,
// INFLIGHT_BUDGET 5), in the bench's process, with one viewer: the figure is
// the estimator's, not the HTTP server's, and needs no build.
import { Collector } from "@/lib/server/collector/collector";
import { parseConfig } from "@/lib/server/config/config";
import {
  coldScanRig,
  measureTimeLeft,
  scansLookedAt,
  timeLeftScanSql,
  type ScanSeen,
  type TimeLeftJudged,
  type TimeLeftRig,
} from "../lib/time-left";
import { r3, sleep } from "../lib/stats";
import { SIZES_DATA_DIR, startTarget } from "../lib/target";
import type { Bench, Json } from "./context";

/** On the 256 MB demo table: ~8 s a scan alone, ~25 s four at once. */
const MD5S = 6;
/** Six scans alone, three rounds of four: 18 scans, about 3 minutes. */
const PLAN = { alone: 6, rounds: 3, together: 4 };
export const TIME_LEFT_GOALS = { heldShare: 0.9, medianError: 0.15 } as const;

export async function timeLeftFigure(bench: Bench): Promise<void> {
  const { cfg, roles, results, running, log, paths } = bench;
  // figure 9's cluster: seeded once, and idle when this runs
  const tgt = await startTarget({
    dataDir: SIZES_DATA_DIR,
    tableMb: cfg.tableMb,
    smallTableMb: cfg.smallTableMb,
    roles: [roles.timeLeft],
    log,
  });
  running.target = tgt;
  const config = parseConfig({}, paths.root);
  const collector = new Collector({
    id: "time-left",
    name: "time-left",
    demo: false,
    watchedSampleMs: config.watchedSampleMs,
    idleSampleMs: config.idleSampleMs,
    windowMs: config.windowMs,
    budgetMsPerSecond: config.budgetMsPerSecond,
  });
  const unsubscribe = collector.feed.subscribe(() => undefined);
  try {
    collector.start(tgt.urlFor(roles.timeLeft));
    for (let i = 0; i < 150 && collector.info().status !== "up"; i++) await sleep(100);
    if (collector.info().status !== "up")
      throw new Error(`the collector is ${collector.info().status}: ${collector.info().lastError ?? "no error"}`);
    const look = (pid: number, from: number) =>
      collector.window.queries().find((q) => q.pid === pid && q.startedAt >= from - 5 && q.endedAt === null);
    const rig = coldScanRig({
      superuserUrl: tgt.server.superuserUrl(tgt.database),
      dataDir: tgt.server.dataDir,
      table: tgt.table,
      sql: timeLeftScanSql(tgt.table, MD5S),
      look,
    });
    const warmUp = await warmUpScans(rig, collector, cfg.sizeWarmupSeconds * 1000);
    log(
      `fig11: warm-up ${warmUp.scans} scans (pg_aios's cost ${warmUp.aiosCalibrated ? "from pg_stat_statements" : "not yet from pg_stat_statements"}); ${PLAN.alone} cold scans of ${tgt.table} alone, then ${PLAN.rounds} rounds of ${PLAN.together} at once`,
    );
    const figure = await measureTimeLeft(rig, PLAN);
    const fig11 = {
      goals: TIME_LEFT_GOALS,
      plan: PLAN,
      md5s: MD5S,
      table: tgt.table,
      sampleMs: config.watchedSampleMs,
      budgetMsPerSecond: config.budgetMsPerSecond,
      warmUp,
      alone: rounded(figure.alone),
      together: rounded(figure.together),
      scans: { alone: scansOf(figure.seen.alone), together: scansOf(figure.seen.together) },
    };
    results.fig11 = fig11;
    log(`fig11 alone ${JSON.stringify(fig11.alone)}; four at once ${JSON.stringify(fig11.together)}`);
  } finally {
    unsubscribe();
    await collector.stop();
    await tgt.admin.end().catch(() => undefined);
    await tgt.server.stop("fast");
    running.target = null;
  }
}

/**
 * Cold scans, unjudged, until the collector has read pg_aios's exact cost
 * from pg_stat_statements (or `ms` passed): before that its budget may space
 * pg_aios out on a guess, and a scan's first positions come seconds late, as
 * on a freshly started inflight (figure 9 warms up the same way).
 */
async function warmUpScans(rig: TimeLeftRig, collector: Collector, ms: number): Promise<{ scans: number; aiosCalibrated: boolean }> {
  const calibrated = () => collector.info().cost.statements.some((s) => s.statement === "aios" && s.source === "pg_stat_statements");
  const client = await rig.connect();
  const until = Date.now() + ms;
  let scans = 0;
  try {
    while (Date.now() < until && !calibrated()) {
      await scansLookedAt(rig, [client]);
      scans++;
    }
  } finally {
    await client.end().catch(() => undefined);
  }
  return { scans, aiosCalibrated: calibrated() };
}

function rounded(j: TimeLeftJudged): Json {
  return { ...j, heldShare: r3(j.heldShare), medianError: r3(j.medianError) };
}

/** Each scan's length and looks, so a figure that misses can be read scan by scan. */
function scansOf(seen: ScanSeen[]): Json[] {
  return seen.map((s) => ({
    ms: s.end - s.start,
    looks: s.looks.map((l) => [
      l.at - s.start,
      l.etaMs,
      l.range?.[0] ?? null,
      l.range?.[1] ?? null,
      l.progress === null ? null : r3(l.progress),
    ]),
  }));
}
