// The sample's two statements on PostgreSQL 18 and 19 side by side
// (BENCHMARKS.md, "PostgreSQL 19 beside 18"): both from the folder
// scripts/iouring-pg.mjs makes (setup --major 19 first), io_method = worker,
// the same settings, 30 s each during eight looping scans, each major twice.
//   node bench/cost-18-19.mjs
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import pg from "pg";
import path from "node:path";
const ROOT = path.resolve(import.meta.dirname, "..");
const SCRIPT = path.join(ROOT, "scripts", "iouring-pg.mjs");
const sql = (f) => readFileSync(path.join(ROOT, "sql", `${f}.sql`), "utf8");
async function measure(major) {
  const name = `cost${major}`;
  const r = spawnSync(process.execPath, [SCRIPT, "start", "--major", String(major), "--data", name, "-c", "io_method=worker"], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(r.stderr);
  const info = JSON.parse(r.stdout.trim().split("\n").pop());
  const admin = new pg.Client(info.superuserUrl);
  await admin.connect();
  await admin.query("CREATE TABLE IF NOT EXISTS t AS SELECT g, repeat(md5(g::text), 6) p FROM generate_series(1, 800000) g");
  const scanners = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const c = new pg.Client(info.superuserUrl);
      await c.connect();
      await c.query("SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = off");
      return c;
    }),
  );
  let on = true;
  const loops = scanners.map(async (c) => {
    while (on) await c.query("SELECT count(*) FROM t");
  });
  const sampler = new pg.Client(info.superuserUrl);
  await sampler.connect();
  await new Promise((r) => setTimeout(r, 2000));
  await admin.query("SELECT pg_stat_statements_reset()");
  const until = Date.now() + 30_000;
  let n = 0;
  while (Date.now() < until) {
    await sampler.query(sql("activity"), [[]]);
    await sampler.query(sql("aios"));
    n++;
    await new Promise((r) => setTimeout(r, 20));
  }
  on = false;
  await Promise.all(loops);
  const { rows } = await admin.query(
    "SELECT substring(query from 'inflight:([a-z_]+)') AS q, calls, round(mean_exec_time::numeric, 3) AS mean_ms FROM pg_stat_statements WHERE query LIKE '%inflight:%' GROUP BY query, calls, mean_exec_time",
  );
  const v = (await admin.query("SELECT version() v, current_setting('io_max_concurrency') c, current_setting('max_connections') m"))
    .rows[0];
  console.log(
    JSON.stringify({
      major,
      version: v.v.split(" on ")[0],
      io_max_concurrency: v.c,
      max_connections: v.m,
      samples: n,
      rows: rows.map(({ q, calls, mean_ms }) => ({ q, calls: Number(calls), mean_ms: Number(mean_ms) })),
    }),
  );
  await Promise.all([...scanners, sampler, admin].map((c) => c.end()));
  spawnSync(process.execPath, [SCRIPT, "stop", "--data", name, "--remove"]);
}
await measure(18);
await measure(19);
await measure(18);
await measure(19);
