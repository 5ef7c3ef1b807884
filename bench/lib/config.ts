// How long each part of the bench runs (BENCH_* overrides, BENCH_QUICK=1 a
// short smoke run), and the login role of each observer: pg_stat_statements
// tells their statements apart by role.

export type BenchConfig = ReturnType<typeof benchConfig>;

export function benchConfig(env: NodeJS.ProcessEnv) {
  const quick = env.BENCH_QUICK === "1";
  const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
  return {
    quick,
    tableMb: num("BENCH_TABLE_MB", 256),
    /** the scans alternate between the demo table and a smaller copy */
    smallTableMb: num("BENCH_SMALL_TABLE_MB", 64),
    /** A's window, and how long it is watched before the browser figure */
    windowMin: num("BENCH_WINDOW_MIN", quick ? 2 : 15),
    /** how long the cold scans of figures 1, 7 and 8 run */
    scanSeconds: num("BENCH_SCAN_S", quick ? 30 : 420),
    viewerSeconds: num("BENCH_VIEWER_S", quick ? 10 : 60),
    /** before the scans: the same observers on a quiet target */
    quietSeconds: num("BENCH_QUIET_S", quick ? 10 : 30),
    extraViewers: 49,
    rateSeconds: num("BENCH_RATE_S", quick ? 10 : 40),
    memWindowS: 60,
    browserSeconds: num("BENCH_BROWSER_S", quick ? 15 : 60),
    browserSettleSeconds: 10,
    desktopSeconds: num("BENCH_DESKTOP_S", quick ? 10 : 30),
    profileSeconds: num("BENCH_PROFILE_S", quick ? 5 : 10),
    shortScanMs: 1000,
    pgActivityRefreshS: 0.5,
  };
}

export const ROLES = {
  a: "bench_inflight_10hz",
  d: "bench_inflight_1hz",
  b: "bench_inflight_50hz",
  c: "bench_inflight_100hz",
  e: "bench_inflight_mem",
  pgbench: "bench_pgbench",
  pga: "bench_pg_activity",
};

export type Roles = typeof ROLES;
