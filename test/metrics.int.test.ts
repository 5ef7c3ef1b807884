// /metrics in the Prometheus text format: parsed here, and scraped by a real
// Prometheus (Debian's package) that then answers a query.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPg, waitFor } from "./support/pg";
import { freePort, startServer, type RunningServer } from "./support/server";

const PROMETHEUS = process.env.PROMETHEUS_BIN ?? "/usr/bin/prometheus";
const PG = testPg();
let app: RunningServer;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text exposition format, enough of it to check every figure. */
function parseMetrics(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.startsWith("# TYPE ")) {
      const [, , name, type] = line.split(" ");
      types.set(name, type);
      continue;
    }
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a metric line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return { samples, types };
}

beforeAll(async () => {
  app = await startServer({ DATABASE_URL: PG.monitorUrl, INFLIGHT_SAMPLE_MS: "100" });
  await waitFor("target up with settings and pg_stat_io", async () => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    return text.includes('inflight_target_up{target="127.0.0.1"} 1') && text.includes("inflight_io_reads_total{");
  }, 20_000);
}, 90_000);

afterAll(async () => {
  await app?.stop();
});

describe("GET /metrics", () => {
  it("has every figure, with its type", async () => {
    const res = await fetch(`${app.url}/metrics`);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const { samples, types } = parseMetrics(await res.text());
    const names = new Set(samples.map((s) => s.name));
    for (const name of [
      "inflight_target_up",
      "inflight_aio_bytes",
      "inflight_io_workers",
      "inflight_setting",
      "inflight_io_method",
      "inflight_restarts_total",
      "inflight_io_reads_total",
      "inflight_io_read_bytes_total",
      "inflight_samples_total",
      "inflight_samples_missed_total",
      "inflight_sample_duration_seconds_bucket",
      "process_resident_memory_bytes",
      "nodejs_heap_size_used_bytes",
    ]) {
      expect(names, name).toContain(name);
    }
    expect(types.get("inflight_samples_total")).toBe("counter");
    expect(types.get("inflight_sample_duration_seconds")).toBe("histogram");
    expect(types.get("inflight_aio_handles")).toBe("gauge");
    const get = (name: string, labels: Record<string, string>) => samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    const target = "127.0.0.1";
    expect(get("inflight_io_workers", { target, kind: "configured" })?.value).toBe(3);
    expect(get("inflight_io_workers", { target, kind: "alive" })?.value).toBe(3);
    expect(get("inflight_io_method", { target, method: "worker" })?.value).toBe(1);
    expect(get("inflight_io_method", { target, method: "sync" })?.value).toBe(0);
    expect(get("inflight_setting", { target, name: "io_combine_limit" })?.value).toBe(131072);
    expect(get("inflight_samples_total", { target })!.value).toBeGreaterThan(0);
    const reads = samples.filter((s) => s.name === "inflight_io_reads_total" && s.labels.backend_type === "client backend");
    expect(reads.length).toBeGreaterThan(0);
  });

  it("is scraped by a real Prometheus, which answers inflight_target_up == 1", async () => {
    expect(existsSync(PROMETHEUS), `${PROMETHEUS} is missing: apt-get install prometheus (.ci/run does)`).toBe(true);
    const dir = await mkdtemp(path.join(os.tmpdir(), "inflight-prom-"));
    const port = await freePort();
    await writeFile(
      path.join(dir, "prometheus.yml"),
      `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: inflight\n    static_configs:\n      - targets: ["127.0.0.1:${app.port}"]\n`,
    );
    let prom: ChildProcess | null = null;
    try {
      prom = spawn(PROMETHEUS, [`--config.file=${path.join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${path.join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: "ignore" });
      const value = await waitFor(
        "Prometheus to answer inflight_target_up",
        async () => {
          try {
            const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent("inflight_target_up")}`);
            const body = (await res.json()) as { data?: { result?: { metric: Record<string, string>; value: [number, string] }[] } };
            return body.data?.result?.[0];
          } catch {
            return null;
          }
        },
        30_000,
        250,
      );
      expect(value.metric.target).toBe("127.0.0.1");
      expect(value.value[1]).toBe("1");
    } finally {
      prom?.kill("SIGTERM");
      await rm(dir, { recursive: true, force: true });
    }
  });
});
