// One inflight server (scripts/start.mjs on the built app) watching a bench
// target under a login role of its own, with one SSE viewer attached so the
// fast cadence runs.
import { startApp, type AppServer } from "./app";
import { listeningPid } from "./proc";
import { SseViewer } from "./sse";
import { sleep } from "./stats";

export const TARGET_ID = "bench";

/** The target payload's `cost` (lib/schemas/target.ts WatchCost), as far as the bench reads it. */
export interface WatchCostLite {
  budgetMsPerSecond: number;
  msPerSecond: number;
  statements: { statement: string; msPerCall: number; callsPerSecond: number; msPerSecond: number; source: string }[];
  aios: { msPerRead: number | null; intervalMs: number | null; skipped: number };
  note: string | null;
}

export interface TargetInfoLite {
  status: string;
  sampleMs: number;
  samples: number;
  missed: number;
  achievedHz: number;
  viewers: number;
  windowMs: number;
  lastError: string | null;
  cost: WatchCostLite;
}

export interface Inflight {
  name: string;
  role: string;
  /** the interval asked for; with none, the one in force when the target came up */
  sampleMs: number;
  server: AppServer;
  /** the process listening on the port (`next start` may fork a child) */
  pid: number;
  viewer: SseViewer;
  /** when the first viewer connected: the fast cadence starts here */
  watchedSince: number;
  info(): Promise<TargetInfoLite>;
  json<T>(path: string): Promise<T>;
  /** GET /metrics, as text */
  metrics(): Promise<string>;
  streamUrl(): string;
  stop(): Promise<void>;
}

export async function startInflight(opts: {
  /** the bench's snapshot of the built app (app.ts) */
  appDir: string;
  name: string;
  role: string;
  url: string;
  /** INFLIGHT_SAMPLE_MS and INFLIGHT_WINDOW; left out, the shipped defaults */
  sampleMs?: number;
  window?: string;
  keepRuns?: boolean;
  /** more settings (INFLIGHT_*) for this server */
  env?: Record<string, string>;
  log: (l: string) => void;
}): Promise<Inflight> {
  const server = await startApp(opts.appDir, {
    INFLIGHT_TARGETS: `${TARGET_ID}=${opts.url}`,
    ...(opts.sampleMs === undefined ? {} : { INFLIGHT_SAMPLE_MS: String(opts.sampleMs) }),
    ...(opts.window === undefined ? {} : { INFLIGHT_WINDOW: opts.window }),
    INFLIGHT_LOG: "1",
    ...opts.env,
  });
  const json = async <T>(p: string): Promise<T> => {
    const res = await fetch(server.url + p, { cache: "no-store" });
    if (!res.ok) throw new Error(`${opts.name}: GET ${p} answered ${res.status}`);
    return (await res.json()) as T;
  };
  const metrics = async (): Promise<string> => {
    const res = await fetch(server.url + "/metrics", { cache: "no-store" });
    if (!res.ok) throw new Error(`${opts.name}: GET /metrics answered ${res.status}`);
    return res.text();
  };
  const info = async () => (await json<{ targets: TargetInfoLite[] }>("/api/targets")).targets[0];
  const until = Date.now() + 60_000;
  let up: TargetInfoLite;
  for (;;) {
    const i = await info().catch(() => null);
    if (i?.status === "up" && i.samples > 0) {
      up = i;
      break;
    }
    if (Date.now() > until)
      throw new Error(`${opts.name}: target not up in 60 s (${i?.status}: ${i?.lastError}); server said:\n${server.output().slice(-2000)}`);
    await sleep(200);
  }
  const pid = listeningPid(server.port) ?? server.pid;
  const streamUrl = () => `${server.url}/api/targets/${TARGET_ID}/stream`;
  const viewer = new SseViewer(streamUrl(), { keepRuns: opts.keepRuns });
  await viewer.open();
  const watchedSince = Date.now();
  opts.log(
    `${opts.name}: inflight on ${server.url} (pid ${pid}), role ${opts.role}, ${opts.sampleMs === undefined ? "the default cadence" : `every ${opts.sampleMs} ms`}, window ${opts.window ?? `${up.windowMs / 60_000} min (default)`}`,
  );
  return {
    name: opts.name,
    role: opts.role,
    sampleMs: opts.sampleMs ?? up.sampleMs,
    server,
    pid,
    viewer,
    watchedSince,
    info,
    json,
    metrics,
    streamUrl,
    async stop() {
      viewer.close();
      await server.stop();
    },
  };
}
