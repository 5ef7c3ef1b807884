import "server-only";
import { promises as fs } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import type { IoMethod } from "../../schemas/enums";

// The cluster a lab runs on, and how its io_method is switched and put back.
// A lab never runs against a cluster that was not handed to it: the demo's
// embedded server, or the one `npm run lab` was given on its command line.

export interface LabCluster {
  /** a superuser's connection URL */
  readonly url: string;
  /** the data directory as this machine sees it; null: ask the server (SHOW data_directory) */
  readonly dataDir: string | null;
  /** Restarts the server so that it comes up with io_method = `method`
   * (set with ALTER SYSTEM beforehand when the server was up). */
  restart(method: IoMethod): Promise<void>;
  /** Drops the files from the OS page cache; null: this cluster's lab cannot. */
  readonly dropCache: ((files: string[]) => Promise<void>) | null;
  /** how each run was made cold, in words (the table says it) */
  readonly cold: string;
}

/** Where io_method comes from before the lab: it is put back the same way. */
export interface MethodOrigin {
  method: IoMethod;
  /** set by ALTER SYSTEM (postgresql.auto.conf): put back with SET, else with RESET */
  inAutoConf: boolean;
  /** every io_method this build offers (enumvals) */
  offered: IoMethod[];
}

const AUTO_CONF = "postgresql.auto.conf";
const APPLICATION = "inflight-lab";

export async function connect(url: string, timeoutMs = 10_000): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: APPLICATION, connectionTimeoutMillis: timeoutMs });
  // A server restarting under an idle connection must not crash the process.
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/** Connects, retrying while the server comes up; the last error when it never does. */
export async function connectWhenUp(url: string, timeoutMs = 30_000): Promise<pg.Client> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await connect(url, 5_000);
    } catch (err) {
      if (Date.now() > until) throw err;
      await sleep(250);
    }
  }
}

export async function withClient<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await connect(url);
  try {
    return await body(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The io_method in force, whether postgresql.auto.conf sets it, and what
 * the build offers. The files are read as they are now (pg_file_settings),
 * not as they were at the start: `pending` says they name another io_method
 * than the one running (an ALTER SYSTEM not yet restarted into).
 */
export async function methodOrigin(client: pg.Client): Promise<MethodOrigin & { pending: boolean }> {
  const { rows } = await client.query<{ setting: IoMethod; enumvals: IoMethod[]; in_auto: boolean; file_value: string | null }>(
    `SELECT s.setting, s.enumvals,
            EXISTS (SELECT 1 FROM pg_catalog.pg_file_settings f WHERE f.name = 'io_method' AND f.sourcefile LIKE '%/${AUTO_CONF}') AS in_auto,
            (SELECT f.setting FROM pg_catalog.pg_file_settings f WHERE f.name = 'io_method' ORDER BY f.seqno DESC LIMIT 1) AS file_value
     FROM pg_catalog.pg_settings s WHERE s.name = 'io_method'`,
  );
  const row = rows[0];
  if (!row) throw new Error("this server has no io_method (PostgreSQL 18 or later is needed)");
  return {
    method: row.setting,
    inAutoConf: row.in_auto,
    offered: row.enumvals,
    pending: row.file_value !== null && row.file_value !== row.setting,
  };
}

/** The io_method and start time of the server as it runs now. */
export async function runningMethod(client: pg.Client): Promise<{ method: string; startedAt: number }> {
  const { rows } = await client.query<{ method: string; started: number }>(
    "SELECT current_setting('io_method') AS method, (extract(epoch FROM pg_catalog.pg_postmaster_start_time()) * 1000)::float8 AS started",
  );
  return { method: rows[0].method, startedAt: rows[0].started };
}

export async function setMethod(client: pg.Client, method: IoMethod): Promise<void> {
  await client.query(`ALTER SYSTEM SET io_method = ${client.escapeLiteral(method)}`);
}

/** The configuration as it was: io_method back in postgresql.auto.conf, or out of it. */
export async function putBackConfig(client: pg.Client, origin: MethodOrigin): Promise<void> {
  await client.query(
    origin.inAutoConf ? `ALTER SYSTEM SET io_method = ${client.escapeLiteral(origin.method)}` : "ALTER SYSTEM RESET io_method",
  );
}

/** pg_settings names the file io_method now comes from (the value is the same: no restart needed). */
export async function reloadConfig(client: pg.Client): Promise<void> {
  await client.query("SELECT pg_catalog.pg_reload_conf()");
}

/**
 * The same as putBackConfig, for a server that is down (an io_method that
 * would not start): postgresql.auto.conf edited in place, as ALTER SYSTEM
 * would have left it. Writing the existing file keeps its owner.
 */
export async function putBackConfigFile(dataDir: string, origin: MethodOrigin): Promise<void> {
  await putBackSettingFile(dataDir, "io_method", origin.inAutoConf ? origin.method : null);
}

/** `name = 'value'` in postgresql.auto.conf, or no line for it (value null): as ALTER SYSTEM SET / RESET would leave the file. */
export async function putBackSettingFile(dataDir: string, name: string, value: string | null): Promise<void> {
  const file = path.join(dataDir, AUTO_CONF);
  const line = new RegExp(`^\\s*${name}\\s*=`);
  const lines = (await fs.readFile(file, "utf8")).split("\n").filter((l) => !line.test(l));
  while (lines.length && lines.at(-1) === "") lines.pop();
  if (value !== null) lines.push(`${name} = '${value.replace(/'/g, "''")}'`);
  await fs.writeFile(file, `${lines.join("\n")}\n`);
}
