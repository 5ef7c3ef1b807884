// Figure 12's target: Debian's PostgreSQL 18 from the test support's folder
// (test/support/iouring.ts), pg_wait_sampling preloaded and created (the
// embedded build cannot load it), a table to scan cold and a smaller copy,
// and a login role for each inflight side by side: some may read the
// extension's views, the others are denied them and sample pg_stat_activity.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { ioUringAvailable, startIoUringPg, WAIT_SAMPLING_PRELOAD, type IoUringPg } from "@/test/support/iouring";

export interface PgwsTarget {
  server: IoUringPg;
  admin: pg.Client;
  tables: string[];
  urlFor(role: string): string;
  /** ALTER SYSTEM SET, then a restart; the admin session is opened again */
  restartWith(settings: Record<string, string>): Promise<void>;
}

/** The extension's functions, each a way of reading it: the polls' role is denied all of them. */
const FUNCTIONS = ["pg_wait_sampling_get_history()", "pg_wait_sampling_get_profile()", "pg_wait_sampling_get_current(integer)"];

async function connectAdmin(server: IoUringPg): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: server.superuserUrl(), application_name: "bench-admin" });
  admin.on("error", () => undefined);
  await admin.connect();
  return admin;
}

/** `rows`: of the big table (about 240 B a row); the small one holds a fifth of them. `granted`: the roles that may read the extension; `denied`: the others. */
interface PgwsOptions {
  rows: number;
  granted: string[];
  denied: string[];
  log: (l: string) => void;
}

export async function startPgwsTarget(opts: PgwsOptions): Promise<PgwsTarget> {
  const io = await ioUringAvailable();
  if (!io.ok) throw new Error(`Debian's PostgreSQL 18 cannot run here: ${io.why}`);
  // shared_buffers small next to the tables: their scans reach the OS
  const server = await startIoUringPg({
    settings: { ...WAIT_SAMPLING_PRELOAD, io_method: "worker", shared_buffers: "64MB", max_parallel_workers_per_gather: "0" },
  });
  try {
    return await prepare(server, opts);
  } catch (err) {
    await server.stop().catch(() => undefined);
    throw err;
  }
}

async function prepare(server: IoUringPg, opts: PgwsOptions): Promise<PgwsTarget> {
  let admin = await connectAdmin(server);
  const started = Date.now();
  // the test support's start creates pg_stat_statements
  await admin.query("CREATE EXTENSION pg_wait_sampling");
  const big = "public.pgws_scan";
  const small = "public.pgws_scan_small";
  await admin.query(
    `CREATE TABLE ${big} AS SELECT g AS id, random() AS reading, repeat(md5(g::text), 6) AS payload FROM generate_series(1, ${opts.rows}) AS g`,
  );
  await admin.query(`CREATE TABLE ${small} AS SELECT * FROM ${big} WHERE id <= ${Math.ceil(opts.rows / 5)}`);
  await admin.query(`VACUUM ANALYZE ${big}, ${small}`);
  await admin.query("CHECKPOINT");
  opts.log(
    `pgws: Debian's PostgreSQL ${server.version} on port ${server.port}, ${big} (${opts.rows} rows) and ${small} made in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  for (const f of FUNCTIONS) await admin.query(`REVOKE EXECUTE ON FUNCTION public.${f} FROM PUBLIC`);
  const passwords = new Map<string, string>();
  for (const role of [...opts.granted, ...opts.denied]) {
    const pw = randomBytes(18).toString("hex");
    passwords.set(role, pw);
    await admin.query(`CREATE ROLE ${admin.escapeIdentifier(role)} LOGIN PASSWORD ${admin.escapeLiteral(pw)} IN ROLE pg_monitor`);
  }
  for (const role of opts.granted)
    for (const f of FUNCTIONS) await admin.query(`GRANT EXECUTE ON FUNCTION public.${f} TO ${admin.escapeIdentifier(role)}`);
  await admin.query("SELECT pg_stat_statements_reset()");
  return {
    server,
    get admin() {
      return admin;
    },
    tables: [big, small],
    urlFor(role) {
      const url = new URL(server.superuserUrl());
      url.username = role;
      url.password = passwords.get(role)!;
      return url.toString();
    },
    async restartWith(settings) {
      for (const [name, value] of Object.entries(settings)) await admin.query(`ALTER SYSTEM SET ${name} = ${admin.escapeLiteral(value)}`);
      await admin.end().catch(() => undefined);
      await server.restart();
      admin = await connectAdmin(server);
    },
  };
}

/** The pid of pg_wait_sampling's background worker: its CPU is what the extension itself costs the server. */
export async function collectorPid(admin: pg.Client): Promise<number | null> {
  const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_wait_sampling collector'");
  return rows[0]?.pid ?? null;
}
