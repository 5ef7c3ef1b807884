// Phase 5, alone on the machine: how many targets one inflight process
// holds. One embedded PostgreSQL 18 (.inflight/bench-fleet, max_connections
// 250) and one inflight whose INFLIGHT_TARGETS names it 10, 50, then 100
// times (a target is a name: each has its own collector and connection).
// For each count: the idle cadence with nobody watching, then one target
// watched over SSE (its 10/s cadence): inflight's CPU and RSS (/proc), its
// event-loop delay p99 (prom-client's, over the span), /metrics' size and
// scrape time; then the fleet page in Chromium -> figure 10.
import path from "node:path";
import { startApp, type AppServer } from "../lib/app";
import { measureFleetPage, type FleetPageResult } from "../lib/fleet-page";
import { metricSum } from "../lib/metrics-text";
import { cpuSeconds, listeningPid, rssBytes } from "../lib/proc";
import { SseViewer } from "../lib/sse";
import { quantile, r3, sleep } from "../lib/stats";
import { startTarget } from "../lib/target";
import type { Bench, Json } from "./context";

const ROLE = "bench_inflight_fleet";
const env = process.env;
const COUNTS = (env.BENCH_FLEET_COUNTS ?? "10,50,100").split(",").map(Number);
const SETTLE_S = Number(env.BENCH_FLEET_SETTLE_S ?? 15);
const SPAN_S = Number(env.BENCH_FLEET_SPAN_S ?? 30);
const PAGE_S = Number(env.BENCH_FLEET_PAGE_S ?? 20);

interface Span {
  seconds: number;
  /** share of one core */
  cpu: number | null;
  rssMb: number | null;
  loopLagP99Ms: number | null;
  loopLagMaxMs: number | null;
  metricsBytes: number;
  metricsScrapeMs: number | null;
  samplesPerSecond: number;
  /** at the span's end, the median over the targets: the sampling interval (stretched by the budget
   * where a sample costs more than the budget allows at the cadence) and what a sample cost the server */
  sampleMsP50: number | null;
  activityMsP50: number | null;
}

export async function manyTargets(bench: Bench): Promise<void> {
  const { paths, results, log } = bench;
  const target = await startTarget({
    dataDir: path.resolve(".inflight/bench-fleet"),
    tableMb: 8,
    smallTableMb: 2,
    roles: [ROLE],
    settings: { max_connections: String(Math.max(...COUNTS) * 2 + 20) },
    log,
  });
  const fig: Json = { counts: COUNTS, spanSeconds: SPAN_S, pageSeconds: PAGE_S, rows: [] as Json[] };
  results.fig10 = fig;
  try {
    for (const n of COUNTS) {
      const names = Array.from({ length: n }, (_, i) => `t${String(i + 1).padStart(3, "0")}`);
      const server = await startApp(paths.app, {
        INFLIGHT_TARGETS: names.map((id) => `${id}=${target.urlFor(ROLE)}`).join(","),
        INFLIGHT_WINDOW: "15m",
      });
      try {
        const pid = listeningPid(server.port) ?? server.pid;
        await allUp(server, n);
        await sleep(SETTLE_S * 1000);
        const idle = await span(server, pid);
        const viewer = new SseViewer(`${server.url}/api/targets/${names[0]}/stream`);
        await viewer.open();
        await sleep(3000);
        const watched = await span(server, pid);
        let page: FleetPageResult | { error: string };
        try {
          page = await measureFleetPage({
            baseUrl: server.url,
            targets: n,
            seconds: PAGE_S,
            executablePath: env.PLAYWRIGHT_CHROMIUM === "bundled" ? undefined : (env.CHROMIUM_PATH ?? "/usr/bin/chromium"),
          });
        } catch (err) {
          page = { error: (err as Error).message.split("\n")[0] };
        }
        viewer.close();
        const row = { targets: n, idle, watched, page };
        (fig.rows as Json[]).push(row);
        log(`fleet ${n}: ${JSON.stringify(row)}`);
        bench.save();
      } finally {
        await server.stop();
      }
    }
  } finally {
    await target.admin.end().catch(() => undefined);
    await target.server.stop("fast").catch(() => undefined);
  }
}

async function allUp(server: AppServer, n: number): Promise<void> {
  const until = Date.now() + 120_000;
  for (;;) {
    const res = await fetch(server.url + "/api/targets", { cache: "no-store" }).catch(() => null);
    const body = res?.ok ? ((await res.json()) as { targets: { status: string; samples: number }[] }) : null;
    const up = body?.targets.filter((t) => t.status === "up" && t.samples > 0).length ?? 0;
    if (up >= n) return;
    if (Date.now() > until) throw new Error(`fleet: ${up} of ${n} targets up in 120 s; server said:\n${server.output().slice(-1500)}`);
    await sleep(500);
  }
}

async function scrape(server: AppServer): Promise<{ text: string; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(server.url + "/metrics", { cache: "no-store" });
  const text = await res.text();
  return { text, ms: performance.now() - t0 };
}

/** SPAN_S seconds of the process as it is: CPU, RSS every second, loop delay and /metrics. */
async function span(server: AppServer, pid: number): Promise<Span> {
  // prom-client resets its loop-delay histogram at each scrape: this one starts the span
  await scrape(server);
  const samples0 = (await fleetState(server)).samples;
  const cpu0 = cpuSeconds(pid);
  const t0 = Date.now();
  const rss: number[] = [];
  while (Date.now() - t0 < SPAN_S * 1000) {
    await sleep(1000);
    const r = rssBytes(pid);
    if (r !== null) rss.push(r);
  }
  const cpu1 = cpuSeconds(pid);
  const seconds = (Date.now() - t0) / 1000;
  const end = await scrape(server);
  const times = [end.ms];
  for (let i = 0; i < 4; i++) times.push((await scrape(server)).ms);
  const state = await fleetState(server);
  const lag = (name: string) => {
    const v = metricSum(end.text, name);
    return v === null ? null : r3(v * 1000);
  };
  return {
    seconds: r3(seconds)!,
    cpu: cpu0 !== null && cpu1 !== null ? r3((cpu1 - cpu0) / seconds) : null,
    rssMb: rss.length ? r3(quantile(rss, 0.5)! / 1048576) : null,
    loopLagP99Ms: lag("nodejs_eventloop_lag_p99_seconds"),
    loopLagMaxMs: lag("nodejs_eventloop_lag_max_seconds"),
    metricsBytes: end.text.length,
    metricsScrapeMs: r3(quantile(times, 0.5)),
    samplesPerSecond: r3((state.samples - samples0) / seconds)!,
    sampleMsP50: state.sampleMsP50,
    activityMsP50: state.activityMsP50,
  };
}

/** Every target's samples so far, and the medians of its interval and of a sample's cost as the page's cost line gives them. */
async function fleetState(server: AppServer): Promise<{ samples: number; sampleMsP50: number | null; activityMsP50: number | null }> {
  const res = await fetch(server.url + "/api/targets", { cache: "no-store" });
  const body = (await res.json()) as {
    targets: { samples: number; sampleMs: number; cost?: { statements?: { statement: string; msPerCall: number | null }[] } }[];
  };
  const activity = body.targets
    .map((t) => t.cost?.statements?.find((x) => x.statement === "activity")?.msPerCall)
    .filter((x): x is number => typeof x === "number");
  return {
    samples: body.targets.reduce((s, t) => s + t.samples, 0),
    sampleMsP50: r3(
      quantile(
        body.targets.map((t) => t.sampleMs),
        0.5,
      ),
    ),
    activityMsP50: r3(quantile(activity, 0.5)),
  };
}
