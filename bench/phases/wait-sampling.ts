// Figure 12, wait events from pg_wait_sampling against inflight's polls of
// pg_stat_activity (issue 44). One Debian PostgreSQL 18 with the extension
// preloaded (bench/lib/pgws-target.ts), three inflight collectors side by
// side in the bench's process at the shipped budget (INFLIGHT_BUDGET 5), each
// under its own role: one reads the extension as shipped (no
// INFLIGHT_SAMPLE_MS: the polls of pg_stat_activity at 4 a second, the runs
// they miss from the profile), one reads it with the polls at 10 a second
// (INFLIGHT_SAMPLE_MS=100), one is denied it and polls at 10 a second (the
// shipped cadence without it). On the same cold scans, at the same time: each
// role's server time (pg_stat_statements, every 2 s for the worst 20 s), the
// wait samples a second each gives a scanning backend, how many of the
// bench's own scans (its list, its clock) each has a run of, and the
// extension's own background worker's CPU. Then
// no query running, then one bare read of each way to read the extension,
// then the same server restarted as max_connections 1000 x
// io_max_concurrency 64 and scanned again.
import pg from "pg";
import { Collector } from "@/lib/server/collector/collector";
import { parseConfig } from "@/lib/server/config/config";
import { perStatement, pgssDelta } from "../lib/pgss";
import { collectorPid, startPgwsTarget, type PgwsTarget } from "../lib/pgws-target";
import { cpuSeconds } from "../lib/proc";
import { ScanDriver } from "../lib/scans";
import { runsOfScans } from "../lib/scan-runs";
import { fig12Tables } from "../lib/report-pgws";
import { MISSED_RUN_MIN_MS } from "@/lib/model/window/missed-runs";
import { r3, r5, sleep } from "../lib/stats";
import { pgssSnapshot } from "../lib/target";
import type { Bench, Json } from "./context";
import { worstWindow } from "./sizes";

const ROLES = { ext: "bench_pgws_extension", ext10: "bench_pgws_extension_10hz", polls: "bench_pgws_polls" } as const;
type Side = keyof typeof ROLES;
/** INFLIGHT_SAMPLE_MS as each is given it: none (the shipped choice, by the wait sampler in use) or 100 */
const SAMPLE_MS: Record<Side, number | undefined> = { ext: undefined, ext10: 100, polls: undefined };
/** A scan ending this close to a span's end may not have its profile read yet: not counted. */
const PROFILE_SETTLE_MS = 2000;
/** about 190 MB and 38 MB: cold scans of 0.5-3 s here */
const ROWS = 800_000;
const SECONDS = { warmUp: 25, scans: 40, idle: 20, bare: 10, bigScans: 60 };
/** The history ring read as a sampler built on it would (what issue 44 first shipped): every call copies the whole ring out of the worker. */
const HISTORY_SQL = `WITH /* bench part: history */ ring AS MATERIALIZED (SELECT pid, (extract(epoch FROM ts) * 1000000)::int8 AS ts_us, event_type, event, queryid FROM public.pg_wait_sampling_history)
SELECT min(ts_us) AS oldest_us, max(ts_us) AS newest_us, count(*)::int AS ring_rows, coalesce(json_agg(json_build_array(pid, ts_us, event_type, event, queryid::text) ORDER BY ts_us)
  FILTER (WHERE ts_us > $1::int8 AND event_type IS DISTINCT FROM 'Activity' AND event IS DISTINCT FROM 'ClientRead'), '[]') AS samples FROM ring`;
/** A profile read as a sampler built on it would: every row not idle, cumulative counts. */
const PROFILE_SQL =
  "SELECT /* bench part: profile */ coalesce(json_agg(json_build_array(pid, event_type, event, queryid::text, count)), '[]') FROM public.pg_wait_sampling_profile WHERE event_type IS DISTINCT FROM 'Activity' AND event IS DISTINCT FROM 'ClientRead'";

export async function waitSamplingFigure(bench: Bench): Promise<void> {
  const { results, log, paths } = bench;
  const tgt = await startPgwsTarget({ rows: ROWS, granted: [ROLES.ext, ROLES.ext10], denied: [ROLES.polls], log });
  const config = parseConfig({}, paths.root);
  const collectors = Object.fromEntries(
    (Object.keys(ROLES) as Side[]).map((side) => [
      side,
      new Collector({
        id: `pgws-${side}`,
        name: side,
        demo: false,
        watchedSampleMs: SAMPLE_MS[side],
        idleSampleMs: config.idleSampleMs,
        windowMs: config.windowMs,
        budgetMsPerSecond: config.budgetMsPerSecond,
      }),
    ]),
  ) as Record<Side, Collector>;
  const unsubscribe = Object.values(collectors).map((c) => c.feed.subscribe(() => undefined));
  const fig12: Json = {
    roles: ROLES,
    rows: ROWS,
    seconds: SECONDS,
    sampleMs: SAMPLE_MS,
    budgetMsPerSecond: config.budgetMsPerSecond,
    version: tgt.server.version,
  };
  results.fig12 = fig12;
  try {
    for (const side of Object.keys(ROLES) as Side[]) collectors[side].start(tgt.urlFor(ROLES[side]));
    await upBoth(collectors, 20_000);
    fig12.samplers = Object.fromEntries(Object.entries(collectors).map(([side, c]) => [side, c.info().waitSampler]));
    fig12.small = await scanSpans(bench, tgt, collectors, SECONDS.scans);
    bench.save();
    log(`fig12 idle: ${SECONDS.idle} s with no query running`);
    fig12.idle = await measure(tgt, collectors, SECONDS.idle, null);
    fig12.bare = await bareReads(tgt);
    log(`fig12 bare reads ${JSON.stringify(fig12.bare)}`);
    bench.save();
    await tgt.restartWith({ max_connections: "1000", io_max_concurrency: "64" });
    await upBoth(collectors, 30_000);
    fig12.big = await scanSpans(bench, tgt, collectors, SECONDS.bigScans);
    log(`fig12:\n${fig12Tables(fig12)}`);
  } finally {
    unsubscribe.forEach((u) => u());
    await Promise.all(Object.values(collectors).map((c) => c.stop()));
    await tgt.admin.end().catch(() => undefined);
    await tgt.server.stop();
  }
}

async function upBoth(collectors: Record<Side, Collector>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  const up = () => Object.values(collectors).every((c) => c.info().status === "up" && c.info().samples > 0);
  while (!up() && Date.now() < until) await sleep(100);
  if (!up())
    throw new Error(
      `not up: ${Object.values(collectors)
        .map((c) => `${c.info().status} ${c.info().lastError ?? ""}`)
        .join("; ")}`,
    );
}

/** Cold scans: a warm-up (until both know pg_aios's cost from pg_stat_statements), then the span measured. */
async function scanSpans(bench: Bench, tgt: PgwsTarget, collectors: Record<Side, Collector>, seconds: number): Promise<Json> {
  const rows = (
    await tgt.admin.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('max_connections', 'io_max_concurrency', 'io_method', 'shared_buffers')",
    )
  ).rows;
  const settings = Object.fromEntries(rows.map((s) => [s.name, s.setting]));
  // the size as the server says it (io_max_concurrency derives from shared_buffers when not set)
  const label = `${settings.max_connections} x ${settings.io_max_concurrency}`;
  const scans = new ScanDriver(tgt.server.superuserUrl(), tgt.server.dataDir, tgt.tables, `pgws-${label.replace(/\s/g, "")}`);
  await scans.open();
  bench.running.driver = scans;
  const loop = scans.start();
  try {
    const calibrated = () =>
      Object.values(collectors).every((c) =>
        c.info().cost.statements.some((s) => s.statement === "aios" && s.source === "pg_stat_statements"),
      );
    const until = Date.now() + SECONDS.warmUp * 1000;
    while (Date.now() < until && !calibrated()) await sleep(500);
    bench.log(
      `fig12 ${label}: cold scans for ${seconds} s (pg_aios's cost ${calibrated() ? "from pg_stat_statements" : "not yet from pg_stat_statements"})`,
    );
    const span = await measure(tgt, collectors, seconds, scans);
    return { label, settings, aiosCalibrated: calibrated(), ...span, scanErrors: scans.errors.slice(0, 3) };
  } finally {
    await scans.close();
    await loop;
    bench.running.driver = null;
  }
}

/** Both roles over `seconds`: server time (worst 20 s from marks every 2 s), samples, the extension's worker's CPU; the scans' runs when scanning. */
async function measure(tgt: PgwsTarget, collectors: Record<Side, Collector>, seconds: number, scans: ScanDriver | null): Promise<Json> {
  const roles = Object.values(ROLES);
  const worker = await collectorPid(tgt.admin);
  const cpu0 = worker ? cpuSeconds(worker) : null;
  const p0 = await pgssSnapshot(tgt.admin, roles);
  const from = Date.now();
  const slots0 = Object.fromEntries(Object.entries(collectors).map(([side, c]) => [side, c.info().samples]));
  const marks: { at: number; ms: Record<string, number> }[] = [{ at: from, ms: {} }];
  while (Date.now() < from + seconds * 1000) {
    await sleep(Math.min(2000, from + seconds * 1000 - Date.now()));
    const p = await pgssSnapshot(tgt.admin, roles);
    marks.push({ at: Date.now(), ms: Object.fromEntries(roles.map((r) => [r, pgssDelta(p0, p, r).totalExecMs])) });
  }
  const p1 = await pgssSnapshot(tgt.admin, roles);
  const to = Date.now();
  const span = (to - from) / 1000;
  const cpu1 = worker ? cpuSeconds(worker) : null;
  const sides: Json = {};
  for (const side of Object.keys(ROLES) as Side[]) {
    const d = pgssDelta(p0, p1, ROLES[side]);
    const c = collectors[side];
    sides[side] = {
      msPerSecond: r3(d.totalExecMs / span),
      worst20s: worstWindow(
        marks.map((m) => ({ at: m.at, ms: m.ms[ROLES[side]] ?? 0 })),
        20_000,
      ),
      byStatement: perStatement(d, span),
      pollsPerSecond: r3((c.info().samples - slots0[side]) / span),
      sampleMs: c.info().sampleMs,
      sampler: c.info().waitSampler?.text ?? null,
      note: c.info().waitSampler?.note ?? null,
      // The page's account of the last 10 s, statement by statement, beside pg_stat_statements' (byStatement).
      page: {
        msPerSecond: c.info().cost.msPerSecond,
        aiosIntervalMs: c.info().cost.aios.intervalMs,
        statements: c.info().cost.statements.map((s) => ({
          file: s.statement,
          msPerCall: r3(s.msPerCall),
          msPerSecond: r3(s.msPerSecond),
          source: s.source,
        })),
      },
      ...(scans ? scanSamples(c, scans, from, to) : {}),
    };
  }
  return { from, to, seconds: r3(span), sides, extensionWorkerCpu: cpu0 !== null && cpu1 !== null ? r5((cpu1 - cpu0) / span) : null };
}

/**
 * The bench's own scans that ran wholly in the span (by its clock, and ended
 * long enough before its end for the profile to have been read past them),
 * which of them the collector has a run of (scan-runs.ts), and the wait
 * samples those runs got a second of scan: the samples a second per active backend.
 */
function scanSamples(c: Collector, scans: ScanDriver, from: number, to: number): Json {
  const mine = scans.scans.filter((s) => s.start >= from && s.end <= to - PROFILE_SETTLE_MS);
  const found = runsOfScans(mine, c.window.queries());
  const runs = [...found.values()];
  const samples = runs.reduce((n, r) => n + r.samples, 0);
  const scanMs = mine.filter((s) => found.has(s.n)).reduce((n, s) => n + s.ms, 0);
  const io = runs.reduce((n, r) => n + r.aioWaitSamples + r.readWaitSamples, 0);
  const long = mine.filter((s) => s.ms >= MISSED_RUN_MIN_MS);
  return {
    scans: mine.length,
    runs: runs.length,
    scansOver100ms: long.length,
    runsOver100ms: long.filter((s) => found.has(s.n)).length,
    fromProfile: runs.filter((r) => r.seenBy === "pg_wait_sampling").length,
    scanMsP50: r3(mine.map((s) => s.ms).sort((a, b) => a - b)[Math.floor(mine.length / 2)] ?? null),
    samplesPerScanSecond: r3(samples / (scanMs / 1000)),
    readShare: r3(samples ? io / samples : null),
    verdicts: runs.reduce<Record<string, number>>((n, r) => ((n[r.verdict] = (n[r.verdict] ?? 0) + 1), n), {}),
  };
}

/** Each way to read the extension, alone, once a second as a sampler would (a superuser session): its server time a read. */
async function bareReads(tgt: PgwsTarget): Promise<Json> {
  const client = new pg.Client({ connectionString: tgt.server.superuserUrl(), application_name: "bench-pgws-bare" });
  await client.connect();
  const out: Json = {};
  try {
    for (const [name, run] of [
      ["history", () => client.query(HISTORY_SQL, [String((Date.now() - 1000) * 1000)])],
      ["profile", () => client.query(PROFILE_SQL)],
    ] as const) {
      const p0 = await pgssSnapshot(tgt.admin, ["postgres"]);
      for (let i = 0; i < SECONDS.bare; i++) {
        await run();
        await sleep(1000);
      }
      const f = pgssDelta(p0, await pgssSnapshot(tgt.admin, ["postgres"]), "postgres").byFile[`part:${name}`];
      const ring =
        name === "history"
          ? (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM public.pg_wait_sampling_history")).rows[0].n
          : (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM public.pg_wait_sampling_profile")).rows[0].n;
      out[name] = { calls: f?.calls ?? 0, meanMs: r3(f ? f.totalExecMs / f.calls : null), rows: ring };
    }
  } finally {
    await client.end();
  }
  return out;
}
