// The bench's own copy of the built app. Other people (and `npm test`)
// rebuild .next in this working tree; a rebuild in the middle of an
// 18-minute run would pull the files from under the servers (the browser
// figure would load chunks that are no longer there). So the bench snapshots
// .next (without its cache) into bench/tmp/app/.next at the start, links the
// rest, and runs `node scripts/start.mjs --no-build` there, as `npm start`
// runs inflight (configuration checked and collectors booted before the
// port is bound). start.mjs finds the project from its own path and makes
// it the cwd (the collector reads sql/ from there), so it and the module it
// imports are copied, not linked: a link would lead it back to this tree.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { freePort } from "@/test/support/server";

export interface AppServer {
  url: string;
  port: number;
  pid: number;
  output(): string;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

const LINKS = ["node_modules", "sql", "public", "package.json", "next.config.ts", "tsconfig.json", "postcss.config.mjs"];
/** scripts/start.mjs and what it imports; the history's writer thread, loaded from disk by path (lib/server/history/writer.ts) */
const COPIES = [
  "scripts/start.mjs",
  "scripts/build-if-needed.mjs",
  "scripts/external-shims.mjs",
  "lib/server/history/samples-writer.mjs",
  "lib/server/history/samples-db.mjs",
  "lib/server/history/sqlite.mjs",
];

/** Copies root/.next (or another build, `next`) to <dir>/.next and scripts/start.mjs, links the rest the server needs; returns the build id. */
export function snapshotApp(root: string, dir: string, next = path.join(root, ".next")): string {
  const buildId = path.join(next, "BUILD_ID");
  if (!existsSync(buildId)) throw new Error("no build: `npm run bench` builds first (scripts/build-if-needed.mjs)");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const id = readFileSync(buildId, "utf8").trim();
  cpSync(next, path.join(dir, ".next"), {
    recursive: true,
    // .next/node_modules links to ../../node_modules: kept relative, it finds the link made below
    verbatimSymlinks: true,
    filter: (src) => !src.startsWith(path.join(next, "cache")) && !src.startsWith(path.join(next, "dev")),
  });
  const copied = readFileSync(path.join(dir, ".next", "BUILD_ID"), "utf8").trim();
  if (copied !== id) throw new Error("the build changed while it was being copied; run the bench again");
  for (const name of LINKS) if (existsSync(path.join(root, name))) symlinkSync(path.join(root, name), path.join(dir, name));
  for (const file of COPIES) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    cpSync(path.join(root, file), path.join(dir, file));
  }
  return id;
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env))
    if (key.startsWith("INFLIGHT_") || key.startsWith("BENCH_") || key === "DATABASE_URL" || key === "HOST" || key === "PORT")
      delete env[key];
  return { ...env, ...extra };
}

export async function startApp(dir: string, env: Record<string, string>): Promise<AppServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(dir, "scripts", "start.mjs"), "--no-build"], {
    cwd: dir,
    env: cleanEnv({ NODE_ENV: "production", HOST: "127.0.0.1", PORT: String(port), ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 100_000) out = out.slice(-50_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  let done = false;
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  void exited.then(() => (done = true));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  for (;;) {
    if (done) throw new Error(`server exited before it was ready:\n${out}`);
    try {
      const res = await fetch(url + "/api/health");
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) {
      child.kill("SIGKILL");
      throw new Error(`server not ready in 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    pid: child.pid!,
    output: () => out,
    exited,
    async stop() {
      if (done) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
