// /metrics of the real built server watching the run's PostgreSQL 18: every
// series of the contract (deploy/contract.ts) with its fixed label sets from
// the first scrape, and a real Prometheus (Debian's) scraping it for 35 s
// of cold scans, whose rate() of the sampled counters agrees with inflight's
// own window, and which answers every Grafana panel's query with data.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTRACT, requiredSeries } from "../deploy/contract";
import { RULE_FILES, loadDashboard, panelQueries } from "../deploy/queries";
import type { WindowSnapshot } from "../lib/schemas/window";
import { parseMetrics, sampleOf } from "./support/metrics-text";
import { connect, evictFromPageCache, testPg, waitFor } from "./support/pg";
import { startPrometheus, type RunningPrometheus } from "./support/prometheus";
import { startServer, type RunningServer } from "./support/server";

const PG = testPg();
const TARGET = "127.0.0.1";
/** Scraped every second for this long: 30 s of rate() and 5 s to spare (the suite's time, not Prometheus', bounds it). */
const SCRAPE_SPAN_MS = 35_000;
const RANGE_S = 30;

let app: RunningServer;

beforeAll(async () => {
  // 10 samples a second without a viewer (no burst samples either): evenly spaced, as the counters assume.
  app = await startServer({ DATABASE_URL: PG.monitorUrl, INFLIGHT_SAMPLE_MS: "100", INFLIGHT_IDLE_SAMPLE_MS: "100" });
  await waitFor(
    "target up with settings and pg_stat_io",
    async () => {
      const text = await (await fetch(`${app.url}/metrics`)).text();
      return text.includes(`inflight_target_up{target="${TARGET}"} 1`) && text.includes("inflight_io_reads_total{");
    },
    20_000,
  );
}, 90_000);

afterAll(async () => {
  await app?.stop();
});

describe("GET /metrics", () => {
  it("has every series of the contract, its fixed label sets zeros included, with its type", async () => {
    const res = await fetch(`${app.url}/metrics`);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const { samples, types } = parseMetrics(await res.text());
    const missing: string[] = [];
    for (const spec of CONTRACT) {
      expect(types.get(spec.name), spec.name).toBe(spec.type);
      for (const labels of requiredSeries(spec, TARGET)) {
        if (!sampleOf(samples, spec.name, labels)) missing.push(`${spec.name}${JSON.stringify(labels)}`);
      }
    }
    expect(missing).toEqual([]);
    const get = (name: string, labels: Record<string, string>) => sampleOf(samples, name, labels);
    expect(get("inflight_io_workers", { target: TARGET, kind: "alive" })?.value).toBe(3);
    expect(get("inflight_io_method", { target: TARGET, method: "worker" })?.value).toBe(1);
    expect(get("inflight_setting", { target: TARGET, name: "io_combine_limit" })?.value).toBe(131072);
    expect(types.get("inflight_sample_duration_seconds")).toBe("histogram");
    for (const name of ["process_resident_memory_bytes", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds"])
      expect(
        samples.some((s) => s.name === name),
        name,
      ).toBe(true);
  });
});

describe("a real Prometheus scraping inflight for 35 s of cold scans", () => {
  let prom: RunningPrometheus;
  let scanner: pg.Client;
  let scanning = true;
  let scans: Promise<void>;
  let until = 0;

  beforeAll(async () => {
    prom = await startPrometheus({ targets: [`127.0.0.1:${app.port}`], ruleFiles: RULE_FILES, scrapeInterval: "1s" });
    scanner = await connect(PG.superuserUrl, "metrics-scans");
    await scanner.query("SET max_parallel_workers_per_gather = 0");
    scans = (async () => {
      while (scanning) {
        await evictFromPageCache(scanner, PG.dataDir, PG.table);
        await scanner.query(`SELECT count(*) FROM ${PG.table} WHERE payload LIKE '%zz%'`);
        await new Promise((r) => setTimeout(r, 300));
      }
    })();
    await new Promise((r) => setTimeout(r, SCRAPE_SPAN_MS));
    until = Date.now();
  }, SCRAPE_SPAN_MS + 60_000);

  afterAll(async () => {
    scanning = false;
    await scans;
    await scanner?.end();
    await prom?.stop();
  });

  it("the wait-event counters over the samples counter, as Prometheus scraped them, are the slots' own average active sessions, within 10%", async () => {
    const at = Math.floor(until / 1000);
    // The scraped values themselves (what rate() divides), both figures over the same span, from
    // the range's first scrape to its last: in CI the window's own average over the whole range,
    // burst samples included, was 12 % off the counters' for IO:AioIoCompletion.
    const raw = async (name: string) => prom.query(`${name}{target="${TARGET}"}[${RANGE_S}s] @ ${at}`);
    const samples = (await raw("inflight_samples_total"))[0]?.values ?? [];
    expect(samples.length).toBeGreaterThan(RANGE_S / 2);
    const [first, last] = [samples[0], samples[samples.length - 1]];
    const sampled = Number(last[1]) - Number(first[1]);
    const window = (await (
      await fetch(`${app.url}/api/targets/${TARGET}/window?from=${first[0] * 1000}&to=${last[0] * 1000}`)
    ).json()) as WindowSnapshot;
    // The slots' samples, as the counters sum them (a burst's are between the slots, not counted).
    const ticks = window.ticks.filter((t) => !t.extra && t.t > first[0] * 1000 && t.t <= last[0] * 1000);
    expect(ticks.length).toBeGreaterThan(200);
    const own = (key: string) => ticks.reduce((n, t) => n + (t.waits[key] ?? 0), 0) / ticks.length;
    const keyOf = (m: Record<string, string>) => (m.wait_event_type === "CPU" ? "CPU" : `${m.wait_event_type}:${m.wait_event}`);
    const compared: string[] = [];
    for (const s of await raw("inflight_backend_wait_samples_total")) {
      const values = s.values ?? [];
      // A counter first exported inside the range (a wait event first seen then: another test's
      // CHECKPOINT) has no value at the first scrape to count from: not compared.
      if (values[0]?.[0] !== first[0] || values.at(-1)?.[0] !== last[0]) continue;
      const key = keyOf(s.metric);
      const theirs = (Number(values.at(-1)![1]) - Number(values[0][1])) / sampled;
      const ours = own(key);
      if (ours < 0.02) continue; // too rare to compare a ratio of
      compared.push(`${key} ${theirs.toFixed(3)} vs ${ours.toFixed(3)}`);
      expect(Math.abs(theirs - ours) / ours, key).toBeLessThanOrEqual(0.1);
    }
    console.log(`[metrics] average active sessions, Prometheus vs the window: ${compared.join("; ")}`);
    expect(compared.some((c) => c.startsWith("IO:AioIoCompletion") || c.startsWith("CPU"))).toBe(true);
  });

  it("answers every Grafana panel's query with data for the target", async () => {
    const empty: string[] = [];
    for (const q of panelQueries(loadDashboard(), { target: TARGET, rateInterval: `${RANGE_S}s` })) {
      if ((await prom.query(q.expr)).length === 0) empty.push(`${q.panel} ${q.refId}: ${q.expr}`);
    }
    expect(empty).toEqual([]);
  });
});
