// The soak (issue 43), run alone (BENCH_ONLY=soak): one inflight server at
// the shipped defaults (no INFLIGHT_SAMPLE_MS, INFLIGHT_WINDOW or
// INFLIGHT_BUDGET: 100 ms, 15 minutes, 5 ms/s; the history on disk on) on
// figures 1-8's target, cold scans running and one SSE viewer connected
// throughout, for BENCH_SOAK_MIN minutes. Every BENCH_SOAK_EVERY_S seconds:
// its RSS (/proc) and, from its /metrics (prom-client's default metrics),
// its JS heap and the event-loop delay since the scrape before. At each
// 5-minute mark once the window is full, the window's contents are counted
// (GET .../window, what a page opening does), then a full collection of
// every isolate through the server's inspector and what is left
// (bench/lib/inspector.ts) -> bench/lib/soak.ts.
import { Inspector, inspectorUrl, settledMemory } from "../lib/inspector";
import { metricSum } from "../lib/metrics-text";
import { loadAvg, rssBytes } from "../lib/proc";
import { soakTable } from "../lib/report-soak";
import { ScanDriver } from "../lib/scans";
import { soakFigure, type SettledReading, type SoakReading } from "../lib/soak";
import { startInflight, TARGET_ID, type Inflight } from "../lib/inflight";
import { sleep } from "../lib/stats";
import { DEFAULT_DATA_DIR, startTarget } from "../lib/target";
import type { Bench, Json } from "./context";

const COUNT_EVERY_S = 300;

export async function soakFigureRun(bench: Bench): Promise<void> {
  const { cfg, roles, paths, results, running, log } = bench;
  const target = await startTarget({
    dataDir: process.env.BENCH_DATA_DIR ?? DEFAULT_DATA_DIR,
    tableMb: cfg.tableMb,
    smallTableMb: cfg.smallTableMb,
    roles: [roles.soak],
    log,
  });
  running.target = target;
  const scans = new ScanDriver(
    target.server.superuserUrl(target.database),
    target.server.dataDir,
    [target.table, target.smallTable],
    `soak${new Date(bench.started).toISOString().slice(11, 19).replace(/:/g, "")}`,
  );
  running.driver = scans;
  await scans.open();
  scans.phase = "soak";
  void scans.start();
  // SIGUSR2 writes a heap snapshot into bench/tmp/app: for looking into a growth by hand (the soak sends none; writing
  // one leaves RSS higher for good: the allocator keeps what writing it took). The inspector on a port of its choosing, loopback only.
  const S = await startInflight({
    appDir: paths.app,
    name: "S (shipped defaults)",
    role: roles.soak,
    url: target.urlFor(roles.soak),
    env: {
      NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --inspect=127.0.0.1:0 ${cfg.soakNodeOptions}`.trim(),
      ...(cfg.soakWindow === null ? {} : { INFLIGHT_WINDOW: cfg.soakWindow }),
    },
    log,
  });
  running.servers.push(S);
  const url = inspectorUrl(S.server.output());
  if (!url) throw new Error(`the soak's server did not say its inspector's address:\n${S.server.output().slice(-2000)}`);
  const inspector = await Inspector.connect(url);
  // the first scrape resets prom-client's delay histogram: each reading's delay is its own 30 s
  await S.metrics();
  // the window's route loaded and compiled now, not between the first two collections
  await windowCounts(S);
  const first = await S.info();
  const windowS = first.windowMs / 1000;
  const endS = cfg.soakMin * 60;
  const readings: (SoakReading & Json)[] = [];
  const settled: (SettledReading & Json)[] = [];
  const windows: Json[] = [];
  const soak: Json = {
    pid: S.pid,
    sampleMs: first.sampleMs,
    windowMs: first.windowMs,
    budgetMsPerSecond: first.cost.budgetMsPerSecond,
    everySeconds: cfg.soakEverySeconds,
    readings,
    settled,
    windows,
  };
  results.soak = soak;
  log(
    `soak: ${cfg.soakMin} min at the defaults (window ${windowS / 60} min, budget ${first.cost.budgetMsPerSecond} ms/s), read every ${cfg.soakEverySeconds} s`,
  );
  for (let s = cfg.soakEverySeconds; s <= endS; s += cfg.soakEverySeconds) {
    await sleep(Math.max(0, S.watchedSince + s * 1000 - Date.now()));
    const r = await readOnce(S, s);
    readings.push({ ...r, scans: scans.scans.length });
    if (s >= windowS && (s - windowS) % COUNT_EVERY_S < cfg.soakEverySeconds) {
      // the window's payload first: the collection after it takes its garbage
      const counts = await windowCounts(S);
      windows.push({ s, ...counts });
      const m = {
        s,
        ...(await settledMemory(inspector, S.pid)),
        window: { ticks: counts.ticks, runs: counts.queries, bytes: counts.bytes },
      };
      settled.push(m);
      log(
        `soak ${(s / 60).toFixed(1)} min, after a full collection: rss ${mb(m.rss)}, live heap ${mb(m.heapUsed)} + ${mb(m.workerHeapUsed)} in ${m.workers} worker(s)`,
      );
    }
    if (s % COUNT_EVERY_S < cfg.soakEverySeconds) {
      log(
        `soak ${s / 60} min: rss ${mb(r.rss)}, heap ${mb(r.heapUsed)}/${mb(r.heapTotal)}, delay p50 ${r.lagP50?.toFixed(1)} p99 ${r.lagP99?.toFixed(1)} ms, ${r.samples} samples, ${r.missed} missed, ${scans.scans.length} scans`,
      );
      bench.save();
    }
  }
  inspector.close();
  const info = await S.info();
  soak.viewer = { ticks: S.viewer.ticks.length, closed: S.viewer.closed, error: S.viewer.error };
  soak.server = { samples: info.samples, missed: info.missed, scans: scans.scans.length, scanErrors: scans.errors.slice(0, 5) };
  if (S.viewer.closed) throw new Error(`the soak's viewer was closed before the end: ${S.viewer.error ?? "the stream ended"}`);
  const figure = soakFigure(readings, windowS, endS, settled);
  soak.figure = figure;
  log(`soak figure:\n${soakTable(figure).join("\n")}`);
}

const mb = (x: number | null) => (x === null ? "?" : `${(x / 1048576).toFixed(1)} MB`);

async function readOnce(S: Inflight, s: number) {
  const rss = rssBytes(S.pid);
  const text = await S.metrics();
  const info = await S.info();
  const num = (name: string, scale = 1) => {
    const v = metricSum(text, name);
    return v === null ? null : v * scale;
  };
  return {
    s,
    at: Date.now(),
    rss,
    heapUsed: num("nodejs_heap_size_used_bytes"),
    heapTotal: num("nodejs_heap_size_total_bytes"),
    external: num("nodejs_external_memory_bytes"),
    lagP50: num("nodejs_eventloop_lag_p50_seconds", 1000),
    lagP99: num("nodejs_eventloop_lag_p99_seconds", 1000),
    lagMax: num("nodejs_eventloop_lag_max_seconds", 1000),
    samples: info.samples,
    missed: info.missed,
    achievedHz: info.achievedHz,
    costMsPerSecond: info.cost.msPerSecond,
    // the machine's load beside each reading: other work on the cores moves the delay
    loadavg: loadAvg(),
  };
}

/** What the window holds: its arrays' lengths and the payload's size, what a page opening it is sent. */
async function windowCounts(S: Inflight): Promise<Record<string, number>> {
  const res = await fetch(`${S.server.url}/api/targets/${TARGET_ID}/window`, { cache: "no-store" });
  const text = await res.text();
  if (!res.ok) return { status: res.status };
  const body = JSON.parse(text) as Json;
  const counts: Record<string, number> = { bytes: text.length };
  for (const [k, v] of Object.entries(body)) if (Array.isArray(v)) counts[k] = v.length;
  return counts;
}
