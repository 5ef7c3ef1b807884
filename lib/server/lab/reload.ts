import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { leverMissing, valuesOutside } from "../../schemas/levers";
import type { LabLever } from "../../schemas/enums";
import { connect, putBackSettingFile, reloadConfig, withClient } from "./cluster";
import { LabInputError } from "./input-error";

// The levers a reload applies (io_workers on 18, the pool's bounds on 19,
// effective_io_concurrency): ALTER SYSTEM, pg_reload_conf(), and the value
// checked in force from a new session before any run (never a restart).

export type ReloadLever = Exclude<LabLever, "io_method">;

/** Where the lever's value comes from before the lab: it is put back the same way. */
export interface LeverOrigin {
  lever: ReloadLever;
  /** the value in force at the start */
  value: string;
  /** set by ALTER SYSTEM (postgresql.auto.conf): put back with SET, else with RESET */
  inAutoConf: boolean;
}

/** How long a reload may take to reach a new session, and the io workers to match it. */
const IN_FORCE_MS = 15_000;

const ORIGIN = `
SELECT s.setting, s.min_val, s.max_val,
       EXISTS (SELECT 1 FROM pg_catalog.pg_file_settings f WHERE f.name = s.name AND f.sourcefile LIKE '%/postgresql.auto.conf') AS in_auto,
       (SELECT f.setting FROM pg_catalog.pg_file_settings f WHERE f.name = s.name ORDER BY f.seqno DESC LIMIT 1) AS file_value
FROM pg_catalog.pg_settings s WHERE s.name = $1`;

/**
 * The lever as the server has it, checked against the values asked for:
 * one it lacks (io_workers on 19), a value outside its pg_settings bounds,
 * a change in the files not yet reloaded, io workers under another
 * io_method: each a LabInputError naming the field.
 */
export async function leverOrigin(
  client: pg.Client,
  lever: ReloadLever,
  values: readonly string[],
  major: number,
  ioMethod: string,
): Promise<LeverOrigin> {
  const missing = leverMissing(lever, major);
  if (missing) throw new LabInputError("lever", missing);
  const row = (
    await client.query<{ setting: string; min_val: string; max_val: string; in_auto: boolean; file_value: string | null }>(ORIGIN, [lever])
  ).rows[0];
  if (!row) throw new LabInputError("lever", `${lever} does not exist on this server (PostgreSQL ${major})`);
  const outside = valuesOutside(lever, values, { min: Number(row.min_val), max: Number(row.max_val) });
  if (outside) throw new LabInputError("values", `${outside} (this server's pg_settings bounds)`);
  if (lever !== "effective_io_concurrency" && ioMethod !== "worker")
    throw new LabInputError(
      "lever",
      `${lever} sizes the io workers, which run only under io_method = worker; this server runs ${ioMethod}`,
    );
  if (row.file_value !== null && row.file_value !== row.setting) {
    throw new LabInputError(
      "lever",
      `${lever} in the configuration files (${row.file_value}) is not the one in force (${row.setting}): a change waiting for a reload; reload first, so that the lab knows what to put back`,
    );
  }
  return { lever, value: row.setting, inAutoConf: row.in_auto };
}

interface Seen {
  value: string;
  workers: number;
  /** 19's pool bound (null on 18) */
  maxWorkers: number | null;
}

/** The lever's value as a new session has it, and the io worker rows now. */
async function seen(url: string, lever: ReloadLever): Promise<Seen> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ v: string; w: number; mx: string | null }>(
      "SELECT current_setting($1) AS v, (SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE backend_type = 'io worker')::int AS w, current_setting('io_max_workers', true) AS mx",
      [lever],
    );
    return { value: rows[0].v, workers: rows[0].w, maxWorkers: rows[0].mx === null ? null : Number(rows[0].mx) };
  });
}

/**
 * The io worker rows a value promises once a reload applied it: 18 runs
 * exactly io_workers; 19's pool stops workers above io_max_workers and
 * starts up to io_min_workers (when io_max_workers lets it: the maximum
 * wins), and in between sizes itself.
 */
export function workersMatch(lever: ReloadLever, value: string, now: Pick<Seen, "workers" | "maxWorkers">): boolean {
  const n = Number(value);
  if (lever === "io_workers") return now.workers === n;
  if (lever === "io_max_workers") return now.workers <= n;
  if (lever === "io_min_workers") return now.workers >= Math.min(n, now.maxWorkers ?? n);
  return true;
}

/** Sets the lever with ALTER SYSTEM and a reload; resolves once a new session has it (and, for io_workers, the workers match). */
export async function applyLever(url: string, lever: ReloadLever, value: string): Promise<void> {
  await withClient(url, async (c) => {
    await c.query(`ALTER SYSTEM SET ${lever} = ${c.escapeLiteral(value)}`);
    await reloadConfig(c);
  });
  await untilInForce(url, lever, value);
}

async function untilInForce(url: string, lever: ReloadLever, value: string): Promise<void> {
  const until = Date.now() + IN_FORCE_MS;
  for (;;) {
    const now = await seen(url, lever);
    if (now.value === value && workersMatch(lever, value, now)) return;
    if (Date.now() > until) {
      throw new Error(
        now.value === value
          ? `${lever} = ${value} is in force, but ${now.workers} io workers run ${IN_FORCE_MS / 1000} s after the reload`
          : `after the reload a new session has ${lever} = ${now.value}, not ${value} (is it set on the command line, or for the database or the role?)`,
      );
    }
    await sleep(100);
  }
}

/**
 * Back to the value and the configuration of the start: with SQL and a
 * reload when the server is up (checked in force), by postgresql.auto.conf
 * when it is down (it then starts with it). Returns the value.
 */
export async function putBackLever(url: string, dataDir: string, origin: LeverOrigin): Promise<string> {
  const client = await connect(url, 5_000).catch(() => null);
  if (!client) {
    await putBackSettingFile(dataDir, origin.lever, origin.inAutoConf ? origin.value : null).catch((err: unknown) => {
      throw new Error(`the server is down and ${dataDir}/postgresql.auto.conf could not be put right (${(err as Error).message})`);
    });
    return origin.value;
  }
  try {
    await client.query(
      origin.inAutoConf ? `ALTER SYSTEM SET ${origin.lever} = ${client.escapeLiteral(origin.value)}` : `ALTER SYSTEM RESET ${origin.lever}`,
    );
    await reloadConfig(client);
  } finally {
    await client.end().catch(() => undefined);
  }
  await untilInForce(url, origin.lever, origin.value);
  return origin.value;
}

/** The schema of pg_buffercache_evict_all() (18's pg_buffercache) in this database, or null: without it a reload lever's rounds keep PostgreSQL's buffers. */
export async function evictAllIn(client: pg.Client): Promise<string | null> {
  const { rows } = await client.query<{ nspname: string }>(
    "SELECT n.nspname FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE p.proname = 'pg_buffercache_evict_all' LIMIT 1",
  );
  return rows[0]?.nspname ?? null;
}

/** Empties PostgreSQL's buffers of what they can give up (unpinned; dirty ones written first). */
export async function evictBuffers(url: string, schema: string): Promise<void> {
  await withClient(url, (c) => c.query(`SELECT * FROM ${c.escapeIdentifier(schema)}.pg_buffercache_evict_all()`));
}
