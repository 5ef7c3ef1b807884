// A real Prometheus (Debian's /usr/bin/prometheus) for tests: it scrapes the
// given /metrics endpoints every second, loads deploy/'s rule files, and
// answers queries. And a stand-in exporter that serves every series of the
// /metrics contract (deploy/contract.ts) that inflight must always emit,
// counters growing with time, so deploy/'s rules and panels can be run
// before (or beside) the app itself.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { CONTRACT, requiredSeries, type MetricSpec } from "../../deploy/contract";

export const PROMETHEUS_BIN = process.env.PROMETHEUS_BIN ?? "/usr/bin/prometheus";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface PromSeries {
  metric: Record<string, string>;
  value?: [number, string];
  values?: [number, string][];
}

export interface RunningPrometheus {
  url: string;
  /** An instant query; throws on a PromQL error (HTTP 400). */
  query(expr: string): Promise<PromSeries[]>;
  /** The rule groups as Prometheus evaluates them (health, lastError). */
  rules(): Promise<{ name: string; rules: { name: string; type: string; health: string; lastError?: string; state?: string }[] }[]>;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** host:port of each /metrics endpoint (job "inflight"). */
  targets: string[];
  ruleFiles?: string[];
  scrapeInterval?: string;
  bearerTokenFile?: string;
}

export async function startPrometheus(opts: PrometheusOptions): Promise<RunningPrometheus> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "inflight-prom-"));
  const port = await freePort();
  const every = opts.scrapeInterval ?? "1s";
  const config = {
    global: { scrape_interval: every, evaluation_interval: every },
    rule_files: opts.ruleFiles ?? [],
    scrape_configs: [
      {
        job_name: "inflight",
        metrics_path: "/metrics",
        ...(opts.bearerTokenFile ? { authorization: { type: "Bearer", credentials_file: opts.bearerTokenFile } } : {}),
        static_configs: [{ targets: opts.targets }],
      },
    ],
  };
  const configFile = path.join(dir, "prometheus.yml");
  await writeFile(configFile, JSON.stringify(config, null, 2)); // JSON is YAML
  const child = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let log = "";
  child.stderr.on("data", (d: Buffer) => {
    log = (log + d.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited ${child.exitCode}: ${log}`);
    }
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus not ready in 30 s: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async query(expr) {
      const res = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr })}`);
      const body = (await res.json()) as { status: string; error?: string; data?: { resultType: string; result: PromSeries[] } };
      if (body.status !== "success") throw new Error(`${body.error ?? res.status}: ${expr}`);
      const data = body.data!;
      if (data.resultType === "scalar") return [{ metric: {}, value: data.result as unknown as [number, string] }];
      return data.result;
    },
    async rules() {
      const body = (await (await fetch(`${url}/api/v1/rules`)).json()) as {
        data: { groups: { name: string; rules: { name: string; type: string; health: string; lastError?: string; state?: string }[] }[] };
      };
      return body.data.groups;
    },
    stop,
  };
}

// ---- The stand-in exporter

/** Per second, for each counter of the contract (by name, then by a label value). */
const COUNTER_RATES: Record<string, number | Record<string, number>> = {
  inflight_samples_total: 10,
  inflight_samples_missed_total: 0.1,
  inflight_samples_extra_total: 0.3,
  inflight_aio_samples_total: 2,
  inflight_backend_wait_samples_total: { CPU: 5, AioIoCompletion: 3, DataFileRead: 1, AioWorkerSubmissionQueue: 0.5 },
  inflight_aio_handles_sampled_total: { async: 8, sync: 1 },
  inflight_aio_bytes_sampled_total: 8 * 131072,
  inflight_io_workers_busy_sampled_total: 10,
  inflight_io_workers_alive_sampled_total: 30,
  inflight_read_wait_samples_total: { async: 4, sync: 1 },
  inflight_io_workers_queue_samples_total: 1,
  inflight_io_workers_read_wait_samples_total: 4,
  inflight_io_worker_pool_at_max_samples_total: 2,
  inflight_io_worker_pool_at_max_queue_samples_total: 0.5,
  inflight_restarts_total: 0,
  inflight_io_reads_total: 10,
  inflight_io_read_bytes_total: 10 * 122880,
  inflight_io_read_seconds_total: 0.01,
  inflight_target_cost_seconds_total: 0.0006,
};
const GAUGES: Record<string, number | Record<string, number>> = {
  inflight_target_up: 1,
  inflight_aio_handles: { SUBMITTED: 2 },
  inflight_io_workers: { configured: 3, alive: 3, busy: 1 },
  inflight_io_method: { worker: 1 },
  inflight_setting: {
    io_workers: 3,
    io_max_concurrency: 64,
    io_combine_limit: 131072,
    io_max_combine_limit: 131072,
    effective_io_concurrency: 16,
    maintenance_io_concurrency: 16,
    shared_buffers: 134217728,
  },
  inflight_pending_restart: 0,
  inflight_finding: 0,
  inflight_collection_ok: 1,
  inflight_viewers: 1,
  inflight_sample_interval_seconds: 0.1,
  inflight_target_budget_seconds_per_second: 0.005,
  inflight_aio_sync_handles: 0,
  inflight_aio_bytes: 262144,
};

function pick(table: Record<string, number | Record<string, number>>, spec: MetricSpec, labels: Record<string, string>): number {
  const v = table[spec.name];
  if (v === undefined) throw new Error(`stand-in exporter: no value for ${spec.name}`);
  if (typeof v === "number") return v;
  for (const [k, lv] of Object.entries(labels)) if (k !== "target" && lv in v) return v[lv];
  return 0;
}

const esc = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');

/** The contract's required series for each target, in the text format, at `seconds` since start; `pools`: the targets that run 19's pool. */
export function contractExposition(targets: string[], seconds: number, pools: readonly string[] = []): string {
  const lines: string[] = [];
  for (const spec of CONTRACT) {
    lines.push(`# HELP ${spec.name} ${spec.help}`, `# TYPE ${spec.name} ${spec.type}`);
    for (const target of targets) {
      for (const labels of requiredSeries(spec, target, { pool: pools.includes(target) })) {
        const value = spec.type === "counter" ? pick(COUNTER_RATES, spec, labels) * seconds : pick(GAUGES, spec, labels);
        const ls = Object.entries(labels)
          .map(([k, v]) => `${k}="${esc(v)}"`)
          .join(",");
        lines.push(`${spec.name}{${ls}} ${value}`);
      }
    }
  }
  return lines.join("\n") + "\n";
}

export interface StandIn {
  hostPort: string;
  stop(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 serving contractExposition() on /metrics. */
export async function startContractExporter(targets: string[], pools: readonly string[] = []): Promise<StandIn> {
  const started = Date.now();
  const server = http.createServer((req, res) => {
    if (req.url !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
    res.end(contractExposition(targets, 1000 + (Date.now() - started) / 1000, pools));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    hostPort: `127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
