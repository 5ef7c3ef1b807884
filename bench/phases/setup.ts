// Setup: the target (embedded PostgreSQL 18 with the demo table and a
// smaller copy), the scan driver, and the two servers that watch through
// phase 1: A (10/s) and D (1/s). And the undoing of all of it at the end of
// the run. (The snapshot of the built app that every server serves is made
// first, in run.ts: figure 9 runs before this.)
import { KNOWN_SETTINGS } from "@/lib/server/config/config";
import { startInflight } from "../lib/inflight";
import { rssBytes } from "../lib/proc";
import { ScanDriver } from "../lib/scans";
import { streamCapEnv } from "../lib/stream-caps";
import { DEFAULT_DATA_DIR, startTarget } from "../lib/target";
import type { Bench, Json, Rig } from "./context";

export async function setUp(bench: Bench): Promise<Rig> {
  const { cfg, roles, paths, results, running, log } = bench;
  const t0 = Date.now();
  const target = await startTarget({
    dataDir: process.env.BENCH_DATA_DIR ?? DEFAULT_DATA_DIR,
    tableMb: cfg.tableMb,
    smallTableMb: cfg.smallTableMb,
    roles: Object.values(roles),
    log,
  });
  running.target = target;
  const pgv = await target.admin.query<{ v: string; tbl: string; small: string }>(
    "SELECT version() AS v, pg_size_pretty(pg_relation_size($1::regclass)) AS tbl, pg_size_pretty(pg_relation_size($2::regclass)) AS small",
    [target.table, target.smallTable],
  );
  (results.tools as Json).postgres = pgv.rows[0].v;
  results.target = {
    table: target.table,
    tableSize: pgv.rows[0].tbl,
    smallTable: target.smallTable,
    smallTableSize: pgv.rows[0].small,
    setupSeconds: (Date.now() - t0) / 1000,
  };
  log(`target ready: ${pgv.rows[0].v.split(" on ")[0]}, ${target.table} ${pgv.rows[0].tbl}`);

  const scans = new ScanDriver(
    target.server.superuserUrl(target.database),
    target.server.dataDir,
    [target.table, target.smallTable],
    new Date(bench.started).toISOString().slice(11, 19).replace(/:/g, ""),
  );
  running.driver = scans;
  await scans.open();

  // A takes figure 3's 50 viewers (one address): stream caps above that where the server has them (stream-caps.ts)
  const caps = streamCapEnv(KNOWN_SETTINGS, cfg.extraViewers + 1 + 10);
  results.streamCaps = caps;
  const A = await startInflight({
    appDir: paths.app,
    name: "A (10/s)",
    role: roles.a,
    url: target.urlFor(roles.a),
    sampleMs: 100,
    window: `${cfg.windowMin}m`,
    keepRuns: true,
    env: caps,
    log,
  });
  running.servers.push(A);
  const D = await startInflight({
    appDir: paths.app,
    name: "D (1/s)",
    role: roles.d,
    url: target.urlFor(roles.d),
    sampleMs: 1000,
    window: `${cfg.windowMin}m`,
    keepRuns: true,
    log,
  });
  running.servers.push(D);
  return { target, scans, A, D, rssAStart: rssBytes(A.pid) };
}

/** Stops whatever the run started, in the reverse order of need; a failure to stop is no reason to stop the rest. */
export async function tearDown(bench: Bench): Promise<void> {
  const { running, memory, errors } = bench;
  memory.stop = true;
  for (const v of running.viewers) v.close();
  await running.driver?.close().catch(() => undefined);
  for (const p of running.peers) await p.stop().catch(() => undefined);
  for (const s of running.servers) await s.stop().catch(() => undefined);
  if (running.target) {
    await running.target.admin.end().catch(() => undefined);
    await running.target.server.stop("fast").catch((err) => errors.push(`pg stop: ${(err as Error).message}`));
  }
  // Stopped once: a second tearDown (the run's own, at its end) has nothing left to stop.
  Object.assign(running, { target: null, driver: null, servers: [], peers: [], viewers: [] });
}
