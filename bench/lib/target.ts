// The bench's target: one embedded PostgreSQL 18 (lib/demo/embedded.ts) with
// the demo table, a login role per observer so pg_stat_statements can tell
// their statements apart, and helpers to read pg_stat_statements by role.
import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { startEmbedded, type EmbeddedServer } from "@/lib/server/demo/embedded";
import { ensureDemoDatabase } from "@/lib/server/demo/seed";
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
  const { rows } = await admin.query<{ per: string }>(`SELECT (count(*) / greatest(pg_relation_size($1::regclass) / 1048576.0, 1))::bigint AS per FROM ${from}`, [from]);
  const rowsWanted = Math.ceil(Number(rows[0].per) * mb);
  await admin.query(`DROP TABLE IF EXISTS ${name}`);
  await admin.query(`CREATE TABLE ${name} AS SELECT * FROM ${from} WHERE id <= $1`.replace("$1", String(rowsWanted)));
  await admin.query(`VACUUM (ANALYZE) ${name}`);
  await admin.query("CHECKPOINT");
  log(`made ${name} (${mb} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return name;
}

export async function startTarget(opts: { dataDir: string; tableMb: number; smallTableMb: number; roles: string[]; log: (l: string) => void }): Promise<BenchTarget> {
  const server = await startEmbedded({ dataDir: opts.dataDir, log: (l) => opts.log(`pg: ${l}`), settings: { max_connections: "60" } });
  const { database, table } = await ensureDemoDatabase(server, { tableMb: opts.tableMb, log: (l) => opts.log(`seed: ${l}`) });
  const admin = new pg.Client({ connectionString: server.superuserUrl(database), application_name: "bench-admin" });
  await admin.connect();
  const small = await ensureSmallTable(admin, table, opts.smallTableMb, opts.log);
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

export interface StatementCounters {
  queryid: string;
  calls: number;
  totalExecMs: number;
  /** the sampling statement (pg_stat_activity joined with pg_aios) */
  sampling: boolean;
  query: string;
}

/** pg_stat_statements counters by role, then queryid. */
export type PgssSnapshot = Map<string, Map<string, StatementCounters>>;

/** pg_stat_statements rows of the given roles, keyed role -> queryid. */
export async function pgssSnapshot(admin: pg.Client, roles: string[]): Promise<PgssSnapshot> {
  const { rows } = await admin.query<{ rolname: string; queryid: string; calls: string; total: number; query: string; sampling: boolean }>(
    `SELECT r.rolname, s.queryid::text AS queryid, s.calls::text AS calls, s.total_exec_time AS total, left(s.query, 300) AS query,
            (s.query LIKE '%pg_aios%' AND s.query LIKE '%pg_stat_activity%' AND s.query LIKE '%json_agg%') AS sampling
     FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
     WHERE r.rolname = ANY($1)`,
    [roles],
  );
  const out = new Map<string, Map<string, StatementCounters>>();
  for (const role of roles) out.set(role, new Map());
  for (const r of rows) {
    const sampling = r.sampling;
    const prev = out.get(r.rolname)!.get(r.queryid);
    // the same queryid can appear once per database: add them up
    out.get(r.rolname)!.set(r.queryid, {
      queryid: r.queryid,
      calls: Number(r.calls) + (prev?.calls ?? 0),
      totalExecMs: r.total + (prev?.totalExecMs ?? 0),
      sampling,
      query: r.query,
    });
  }
  return out;
}

export interface RoleDelta {
  calls: number;
  totalExecMs: number;
  samplingCalls: number;
  samplingExecMs: number;
  statements: { query: string; calls: number; totalExecMs: number }[];
}

export function pgssDelta(before: PgssSnapshot, after: PgssSnapshot, role: string): RoleDelta {
  const b = before.get(role) ?? new Map();
  const a = after.get(role) ?? new Map();
  const out: RoleDelta = { calls: 0, totalExecMs: 0, samplingCalls: 0, samplingExecMs: 0, statements: [] };
  for (const [id, cur] of a) {
    const old = b.get(id);
    const calls = cur.calls - (old?.calls ?? 0);
    const ms = cur.totalExecMs - (old?.totalExecMs ?? 0);
    if (calls <= 0) continue;
    out.calls += calls;
    out.totalExecMs += ms;
    if (cur.sampling) {
      out.samplingCalls += calls;
      out.samplingExecMs += ms;
    }
    out.statements.push({ query: cur.query.replace(/\s+/g, " ").slice(0, 120), calls, totalExecMs: Math.round(ms * 1000) / 1000 });
  }
  out.statements.sort((x, y) => y.totalExecMs - x.totalExecMs);
  return out;
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
