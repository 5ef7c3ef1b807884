import "server-only";
import path from "node:path";
import type pg from "pg";
import { planRelations, planWrites } from "../../model/lab/explain";
import { customSqlProblem, runnableSql } from "../../model/lab/sql";
import { hasExplainIo, majorOf } from "../../model/window/major";
import type { LabLever } from "../../schemas/enums";
import { segmentFiles } from "../demo/evict";
import { methodOrigin, withClient, type LabCluster, type MethodOrigin } from "./cluster";
import { LabInputError } from "./input-error";
import { evictAllIn, leverOrigin, type LeverOrigin } from "./reload";

export { LabInputError, isLabInputError } from "./input-error";

/** What one run executes: one read-only SELECT and the session settings it needs. */
export interface LabStatement {
  sql: string;
  settings: readonly (readonly [string, string])[];
  /** a role without write or admin rights to run it as (SET ROLE); null: the connecting role */
  readRole: string | null;
  /** the user's own SQL: checked before PostgreSQL plans it */
  custom: boolean;
}

export interface PreparedLab {
  statement: LabStatement;
  origin: MethodOrigin;
  /** every segment file of the tables the plan reads, their indexes and TOAST */
  files: string[];
  /** the data directory as this machine sees it (postgresql.auto.conf is put right there when a method will not start) */
  dataDir: string;
  serverVersion: string;
  /** its EXPLAIN takes IO (PostgreSQL 19): each run's scan prefetch distance and I/Os */
  explainIo: boolean;
  /** a lever a reload applies: its value at the start (put back at the end); null for io_method */
  lever: LeverOrigin | null;
  /** the schema of pg_buffercache_evict_all() where the database has it (a reload lever's rounds then start with PostgreSQL's buffers empty) */
  evictIn: string | null;
}

/** Statement timeout of one run: a cold scan of a large table takes a while. */
export const RUN_TIMEOUT_MS = 10 * 60_000;

/** BEGIN READ ONLY, the settings, the role: every statement of a lab runs inside this. */
export async function inReadOnly<T>(
  client: pg.Client,
  statement: LabStatement,
  body: () => Promise<T>,
  timeoutMs = RUN_TIMEOUT_MS,
): Promise<T> {
  await client.query("BEGIN TRANSACTION READ ONLY");
  try {
    // A superuser setting, so before SET ROLE: I/O Timings need it.
    await client.query("SET LOCAL track_io_timing = on");
    await client.query(`SET LOCAL statement_timeout = ${Math.round(timeoutMs)}`);
    // One backend does all the reads, as in the demo workload and the write-ups' labs.
    await client.query("SET LOCAL max_parallel_workers_per_gather = 0");
    for (const [name, value] of statement.settings) await client.query(`SELECT set_config($1, $2, true)`, [name, value]);
    if (statement.readRole) await client.query(`SET LOCAL ROLE ${client.escapeIdentifier(statement.readRole)}`);
    return await body();
  } finally {
    await client.query("ROLLBACK").catch(() => undefined);
  }
}

const RELATION_FILES = `
WITH rel AS (SELECT to_regclass($1) AS oid),
     toast AS (SELECT reltoastrelid AS oid FROM pg_catalog.pg_class WHERE oid = (SELECT oid FROM rel) AND reltoastrelid <> 0)
SELECT pg_catalog.pg_relation_filepath(c.oid) AS path
FROM pg_catalog.pg_class c
WHERE c.oid IN (SELECT oid FROM rel UNION ALL SELECT oid FROM toast)
   OR c.oid IN (SELECT indexrelid FROM pg_catalog.pg_index WHERE indrelid IN (SELECT oid FROM rel UNION ALL SELECT oid FROM toast))`;

async function relationFiles(client: pg.Client, dataDir: string, json: unknown): Promise<string[]> {
  const files: string[] = [];
  for (const r of planRelations(json)) {
    const name = r.schema ? `${client.escapeIdentifier(r.schema)}.${client.escapeIdentifier(r.name)}` : client.escapeIdentifier(r.name);
    const { rows } = await client.query<{ path: string | null }>(RELATION_FILES, [name]);
    for (const row of rows) if (row.path) files.push(...(await segmentFiles(path.join(dataDir, row.path))));
  }
  return files;
}

/** The io_method lab: the methods are offered and none is waiting for a restart (it could not be put back). */
function checkMethods(origin: MethodOrigin & { pending: boolean }, values: readonly string[]): null {
  const missing = values.filter((m) => !(origin.offered as string[]).includes(m));
  if (missing.length) throw new LabInputError("methods", `this build offers ${origin.offered.join(", ")}, not ${missing.join(", ")}`);
  if (origin.pending)
    throw new LabInputError(
      "methods",
      "io_method in the configuration files is not the one running (a change waiting for a restart): restart the server first, so that the lab knows which io_method to put back",
    );
  return null;
}

/** PostgreSQL's complaint about the user's SQL, as the field's message. */
function sqlError(err: unknown): LabInputError {
  const e = err as { message?: string; position?: string };
  return new LabInputError(
    "sql",
    `PostgreSQL refused it: ${(e.message ?? String(err)).split("\n")[0]}${e.position ? ` (at character ${e.position})` : ""}`,
  );
}

/**
 * Everything checked before the first change: the io_methods asked for are
 * offered and io_method has no change waiting (or the lever exists on this
 * server, its values are within its bounds and it has no change waiting),
 * and the statement plans as a read-only SELECT; the files to drop before
 * each run come from its plan.
 */
export async function prepareLab(
  cluster: LabCluster,
  statement: LabStatement,
  lever: LabLever,
  values: readonly string[],
): Promise<PreparedLab> {
  if (statement.custom) {
    const problem = customSqlProblem(statement.sql);
    if (problem) throw new LabInputError("sql", problem);
  }
  const prepared = { ...statement, sql: runnableSql(statement.sql) };
  return withClient(cluster.url, async (client) => {
    const origin = await methodOrigin(client);
    const { v: version, n } = (
      await client.query<{ v: string; n: number }>(
        "SELECT current_setting('server_version') AS v, current_setting('server_version_num')::int AS n",
      )
    ).rows[0];
    const leverFrom =
      lever === "io_method"
        ? checkMethods(origin, values)
        : await leverOrigin(client, lever, values, Math.floor(n / 10_000), origin.method);
    let plan: unknown;
    try {
      plan = await inReadOnly(
        client,
        prepared,
        async () => (await client.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (VERBOSE, FORMAT JSON) ${prepared.sql}`)).rows[0]["QUERY PLAN"],
      );
    } catch (err) {
      throw sqlError(err);
    }
    const writes = planWrites(plan);
    if (writes) throw new LabInputError("sql", `must be one read-only SELECT: its plan has a ${writes} node`);
    const dataDir = cluster.dataDir ?? (await client.query<{ d: string }>("SELECT current_setting('data_directory') AS d")).rows[0].d;
    const files = cluster.dropCache ? await relationFiles(client, dataDir, plan) : [];
    if (cluster.dropCache && files.length === 0)
      throw new LabInputError("sql", `its plan reads no table whose files are under ${dataDir}: nothing to make cold`);
    const evictIn = leverFrom ? await evictAllIn(client) : null;
    return {
      statement: prepared,
      origin,
      files,
      dataDir,
      serverVersion: version,
      explainIo: hasExplainIo(majorOf(n)),
      lever: leverFrom,
      evictIn,
    };
  });
}
