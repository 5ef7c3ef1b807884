// The bench's targets: an embedded PostgreSQL 18 (lib/server/demo/embedded.ts)
// with the demo table, a login role per observer so pg_stat_statements can
// tell their statements apart, and the reading of pg_stat_statements by role.
import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { startEmbedded, type EmbeddedServer } from "@/lib/server/demo/embedded";
import { ensureDemoDatabase } from "@/lib/server/demo/seed";
import { snapshotOf, type PgssSnapshot } from "./pgss";
import { cpuSeconds } from "./proc";

export interface BenchTarget {
  server: EmbeddedServer;
  database: string;
  table: string;
  /** a smaller copy of the table: shorter cold scans */
  smallTable: string;
  /** superuser client on the demo database, for the bench's own reads */
  admin: pg.Client;
  urlFor(role: string): string;
  passwordOf(role: string): string;
}

/**
 * A smaller copy of the demo table's first rows: its cold scans take a few
 * hundred ms, the short end of "under a second".
 */
async function ensureSmallTable(admin: pg.Client, from: string, mb: number, log: (l: string) => void): Promise<string> {
  const name = `public.bench_readings_${mb}mb`;
  const size = await admin.query<{ bytes: string | null }>("SELECT pg_relation_size(to_regclass($1)) AS bytes", [name]);
  const bytes = Number(size.rows[0]?.bytes ?? 0);
  if (bytes >= mb * 1024 * 1024 * 0.95) return name;
  const started = Date.now();
  const { rows } = await admin.query<{ per: string }>(
    `SELECT (count(*) / greatest(pg_relation_size($1::regclass) / 1048576.0, 1))::bigint AS per FROM ${from}`,
    [from],
  );
  const rowsWanted = Math.ceil(Number(rows[0].per) * mb);
  await admin.query(`DROP TABLE IF EXISTS ${name}`);
  await admin.query(`CREATE TABLE ${name} AS SELECT * FROM ${from} WHERE id <= $1`.replace("$1", String(rowsWanted)));
  await admin.query(`VACUUM (ANALYZE) ${name}`);
  await admin.query("CHECKPOINT");
  log(`made ${name} (${mb} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return name;
}

/** `settings`: postgresql.conf settings over the bench's own (max_connections 60 unless given). */
export async function startTarget(opts: {
  dataDir: string;
  tableMb: number;
  smallTableMb: number;
  roles: string[];
  settings?: Record<string, string>;
  log: (l: string) => void;
}): Promise<BenchTarget> {
  const server = await startEmbedded({
    dataDir: opts.dataDir,
    log: (l) => opts.log(`pg: ${l}`),
    settings: { max_connections: "60", ...opts.settings },
  });
  const { database, table } = await ensureDemoDatabase(server, { tableMb: opts.tableMb, log: (l) => opts.log(`seed: ${l}`) });
  const admin = new pg.Client({ connectionString: server.superuserUrl(database), application_name: "bench-admin" });
  await admin.connect();
  const small = await ensureSmallTable(admin, table, opts.smallTableMb, opts.log);
  // pg_stat_statements keeps its counters across restarts: each start is a
  // fresh server to inflight (its first read of its own entries calibrates
  // what each statement costs; a mean over earlier runs, or over another
  // size's, would be another server's cost)
  await admin.query("SELECT pg_stat_statements_reset()");
  const passwords = new Map<string, string>();
  for (const role of opts.roles) {
    const pw = randomBytes(18).toString("hex");
    passwords.set(role, pw);
    const id = admin.escapeIdentifier(role);
    const exists = await admin.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]);
    if (exists.rowCount === 0) await admin.query(`CREATE ROLE ${id} LOGIN`);
    await admin.query(`ALTER ROLE ${id} WITH LOGIN PASSWORD ${admin.escapeLiteral(pw)}`);
    await admin.query(`GRANT pg_monitor TO ${id}`);
  }
  return {
    server,
    database,
    table,
    smallTable: small,
    admin,
    passwordOf: (role) => passwords.get(role)!,
    urlFor: (role) => `postgres://${role}:${passwords.get(role)}@127.0.0.1:${server.port}/${database}`,
  };
}

/** pg_stat_statements rows of the given roles, keyed role -> queryid (pgss.ts: markers and deltas). */
export async function pgssSnapshot(admin: pg.Client, roles: string[]): Promise<PgssSnapshot> {
  const { rows } = await admin.query<{ rolname: string; queryid: string; calls: string; total: number; query: string }>(
    `SELECT r.rolname, s.queryid::text AS queryid, s.calls::text AS calls, s.total_exec_time AS total, left(s.query, 300) AS query
     FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
     WHERE r.rolname = ANY($1)`,
    [roles],
  );
  return snapshotOf(
    rows.map((r) => ({ rolname: r.rolname, queryid: r.queryid, calls: Number(r.calls), totalExecMs: r.total, query: r.query })),
    roles,
  );
}

/** pid of a role's backend with the given application_name (first match). */
export async function backendPid(admin: pg.Client, role: string, applicationName?: string): Promise<number | null> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE usename = $1 AND ($2::text IS NULL OR application_name = $2) AND backend_type = 'client backend' ORDER BY backend_start LIMIT 1`,
    [role, applicationName ?? null],
  );
  return rows[0]?.pid ?? null;
}

/** A role's backend (see backendPid) and the CPU seconds it has used so far (null: no such backend). */
export async function cpuOfRole(target: BenchTarget, role: string, app?: string) {
  const pid = await backendPid(target.admin, role, app);
  return { pid, cpu: pid ? cpuSeconds(pid) : null };
}

export const DEFAULT_DATA_DIR = path.resolve(".inflight/bench-pg");
/** figure 9's server, started once per size with other settings (the same data each time) */
export const SIZES_DATA_DIR = path.resolve(".inflight/bench-sizes");
