// Starts the real, built HTTP server (`next start`) for a test, with the
// environment the test gives it. `npm test` builds before vitest runs.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { childEnv } from "../../lib/server/runtime/config";

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

const ROOT = path.resolve(__dirname, "..", "..");
const NEXT = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");

/** Environment with nothing inflight-related inherited from the caller. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = childEnv((key) => key.startsWith("INFLIGHT_") || key === "DATABASE_URL" || key === "HOST" || key === "PORT");
  return { ...env, ...extra };
}

export interface SpawnedServer {
  child: ChildProcess;
  output: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** `bind`: the -H given to next start (default HOST or 127.0.0.1); null gives none (every interface). */
export function spawnServer(env: Record<string, string>, port: number, bind: string | null = env.HOST ?? "127.0.0.1"): SpawnedServer {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) throw new Error("no build: run `npm run build` (npm test builds first)");
  const child = spawn(process.execPath, [NEXT, "start", ...(bind === null ? [] : ["-H", bind]), "-p", String(port)], {
    cwd: ROOT,
    env: cleanEnv({ NODE_ENV: "production", NEXT_MANUAL_SIG_HANDLE: "true", PORT: String(port), ...env }),
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
