import "server-only";

import pg from "pg";

import type { EmbeddedServer } from "./embedded";

export interface DemoDatabaseOptions {
  /** Default "inflight_demo". */
  database?: string;
  /** Minimum heap size of the demo table in MB. Default 256. */
  tableMb?: number;
  log?: (line: string) => void;
}

export interface DemoDatabase {
  database: string;
  /** Schema-qualified, e.g. "public.readings". */
  table: string;
}

const TABLE = "public.readings";
/** Bump when the table's shape changes, so old demo tables get rebuilt. */
const MARKER_VERSION = "inflight-demo v1";
/** Row estimate before the first batch is measured: ~188 bytes a row with a 120-char payload. */
const ESTIMATED_ROWS_PER_MB = 5_520;
const MB = 1024 * 1024;

const CREATE_TABLE = `
CREATE TABLE ${TABLE} (
  id       bigint      NOT NULL,
  sensor   int         NOT NULL,
  taken_at timestamptz NOT NULL,
  reading  float8      NOT NULL,
  payload  text        NOT NULL
)`;

/**
 * Rows in id order, so the heap is physically clustered by id: range scans
 * then read neighbouring blocks. The payload is hex only, so the workload's
 * LIKE '%zz%' filter matches nothing and the scan cost is pure reading.
 */
const INSERT_BATCH = `
INSERT INTO ${TABLE} (id, sensor, taken_at, reading, payload)
SELECT g,
       (g % 500)::int,
       timestamptz '2025-01-01 00:00:00+00' + g * interval '1 second',
       (g % 1000) / 10.0 + sin(g::float8),
       repeat(lpad(to_hex((g * 2654435761) % 4294967296), 8, '0'), 15)
FROM generate_series($1::bigint, $2::bigint) AS g`;

function defaultLog(line: string): void {
  console.log(`[inflight] ${line}`);
}

function marker(tableMb: number): string {
  return `${MARKER_VERSION} tableMb=${tableMb}`;
}

/**
 * Creates the demo database and its table once; later calls find the
 * marker comment and return at once. A table without the marker (an
 * interrupted seed, or another size) is rebuilt.
 */
export async function ensureDemoDatabase(
  server: Pick<EmbeddedServer, "superuserUrl">,
  opts: DemoDatabaseOptions = {},
): Promise<DemoDatabase> {
  const database = opts.database ?? "inflight_demo";
  const tableMb = opts.tableMb ?? 256;
  const log = opts.log ?? defaultLog;
  if (!(tableMb > 0)) throw new Error(`tableMb must be positive, got ${tableMb}`);

  await createDatabase(server, database);
  await withClient(server.superuserUrl(database), async (client) => {
    // Two app processes seeding at once would each drop the other's table.
    await client.query("SELECT pg_advisory_lock(hashtext('inflight-demo-seed'))");
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    // pg_stat_statements keeps the first text it saw of each statement, across
    // restarts: a demo from before its bookkeeping carried inflight's marker
    // would list it as workload forever. Its figures start afresh with each
    // start of the demo (inflight's window starts empty then anyway).
    await client.query("SELECT pg_stat_statements_reset()");
    if ((await currentMarker(client)) === marker(tableMb)) return;
    const started = Date.now();
    await buildTable(client, tableMb, (line) => log(`${database}.${TABLE}: ${line}`));
    log(`${database}.${TABLE}: ready, ${tableMb} MB seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
  return { database, table: TABLE };
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: "inflight-seed" });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function createDatabase(server: Pick<EmbeddedServer, "superuserUrl">, database: string): Promise<void> {
  await withClient(server.superuserUrl("postgres"), async (client) => {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (found.rowCount !== 0) return;
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
    } catch (err) {
      // 42P04 duplicate_database: a concurrent caller created it between our check and CREATE.
      if ((err as { code?: string }).code !== "42P04") throw err;
    }
  });
}

async function currentMarker(client: pg.Client): Promise<string | null> {
  const res = await client.query<{ comment: string | null }>("SELECT obj_description(to_regclass($1), 'pg_class') AS comment", [TABLE]);
  return res.rows[0]?.comment ?? null;
}

async function heapBytes(client: pg.Client): Promise<number> {
  const res = await client.query<{ bytes: string }>("SELECT pg_relation_size($1::regclass) AS bytes", [TABLE]);
  return Number(res.rows[0]?.bytes ?? 0);
}

/**
 * Fills in batches until the heap reaches tableMb, re-estimating the row
 * density from what was written so far. The primary key is built after the
 * load because one sorted build is far cheaper than row-by-row inserts.
 */
async function buildTable(client: pg.Client, tableMb: number, log: (line: string) => void): Promise<void> {
  const target = tableMb * MB;
  const quarter = Math.ceil((tableMb * ESTIMATED_ROWS_PER_MB) / 4);
  // Commit waits and a small maintenance_work_mem dominate the load time otherwise.
  await client.query("SET synchronous_commit = off");
  await client.query("SET maintenance_work_mem = '128MB'");
  await client.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await client.query(CREATE_TABLE);

  let rows = 0;
  let bytes = 0;
  while (bytes < target) {
    const density = bytes > 0 ? rows / bytes : quarter / (target / 4);
    const remaining = Math.max(1_000, Math.ceil((target - bytes) * density));
    const batch = Math.min(quarter, remaining);
    await client.query(INSERT_BATCH, [rows + 1, rows + batch]);
    rows += batch;
    bytes = await heapBytes(client);
    log(`seeding ${Math.min(100, Math.round((bytes / target) * 100))}% (${Math.round(bytes / MB)} of ${tableMb} MB, ${rows} rows)`);
  }

  log("building primary key, vacuum, analyze");
  await client.query(`ALTER TABLE ${TABLE} ADD CONSTRAINT readings_pkey PRIMARY KEY (id)`);
  await client.query(`VACUUM (ANALYZE) ${TABLE}`);
  // Clean pages can be evicted from the OS page cache; dirty ones cannot, so the workload's cold reads need this.
  await client.query("CHECKPOINT");
  await client.query(`COMMENT ON TABLE ${TABLE} IS ${client.escapeLiteral(marker(tableMb))}`);
}
