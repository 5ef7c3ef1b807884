// Starts the real, built HTTP server for a test, as `npm start` runs it
// (scripts/start.mjs: inflight boots, then the port is bound), with the
// environment the test gives it. `npm test` builds before vitest runs.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { inject } from "vitest";
import { childEnv } from "../../lib/server/config/config";

export interface RunningServer {
  url: string;
  port: number;
  /** everything the process printed so far */
  output(): string;
  /** what it printed on stderr alone */
  stderr(): string;
  pid: number;
  /** resolves with the exit code */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

// INFLIGHT_TEST_APP: another checkout, built, whose server the tests start
// instead (a before/after measurement: BENCHMARKS.md's crowd figures).
const ROOT = process.env.INFLIGHT_TEST_APP ? path.resolve(process.env.INFLIGHT_TEST_APP) : path.resolve(__dirname, "..", "..");
const NEXT = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
const START = path.join(ROOT, "scripts", "start.mjs");

/**
 * The run's history file (made by the global setup, removed with its run
 * folder), unless the test names one: test servers must not write into the
 * project's .inflight/history.db.
 */
export function testHistoryFile(): string {
  return inject("historyFile");
}

/** Environment with nothing inflight-related inherited from the caller. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = childEnv((key) => key.startsWith("INFLIGHT_") || key === "DATABASE_URL" || key === "HOST" || key === "PORT");
  return { ...env, INFLIGHT_HISTORY_FILE: testHistoryFile(), ...extra };
}

export interface SpawnedServer {
  child: ChildProcess;
  output: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * `bind`: the HOST scripts/start.mjs binds (default HOST or 127.0.0.1).
 * null: a bare `next start -p` with no -H (every interface), which only
 * lib/config.ts's check of the bound address stops.
 */
export function spawnServer(env: Record<string, string>, port: number, bind: string | null = env.HOST ?? "127.0.0.1"): SpawnedServer {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) throw new Error("no build: run `npm run build` (npm test builds first)");
  // --no-build: tests start several servers at once; they must not build concurrently.
  const args = bind === null ? [NEXT, "start", "-p", String(port)] : [START, "--no-build"];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: cleanEnv({
      NODE_ENV: "production",
      NEXT_MANUAL_SIG_HANDLE: "true",
      PORT: String(port),
      ...(bind === null ? {} : { HOST: bind }),
      ...env,
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => {
    out += d;
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => out, stderr: () => err, exited };
}

export async function startServer(env: Record<string, string>, readyPath = "/api/health"): Promise<RunningServer> {
  const port = await freePort();
  const { child, output, stderr, exited } = spawnServer(env, port);
  const url = `http://127.0.0.1:${port}`;
  let done = false;
  void exited.then(() => (done = true));
  const until = Date.now() + 60_000;
  for (;;) {
    if (done) throw new Error(`server exited before it was ready:\n${output()}`);
    try {
      const res = await fetch(url + readyPath);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) {
      child.kill("SIGKILL");
      throw new Error(`server not ready in 60 s:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    output,
    stderr,
    pid: child.pid!,
    exited,
    async stop() {
      if (!done) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
