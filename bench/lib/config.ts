// How long each part of the bench runs (BENCH_* overrides, BENCH_QUICK=1 a
// short smoke run), the server sizes of figure 9, and the login role of each
// observer: pg_stat_statements tells their statements apart by role.

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
    /** B (50/s) and C (100/s): a budget that does not decide their cadence (the default 5 ms/s would slow them; figure 9 and the page say by how much) */
    rateBudgetMs: 100,
    memWindowS: 60,
    browserSeconds: num("BENCH_BROWSER_S", quick ? 15 : 60),
    browserSettleSeconds: 10,
    desktopSeconds: num("BENCH_DESKTOP_S", quick ? 10 : 30),
    profileSeconds: num("BENCH_PROFILE_S", quick ? 5 : 10),
    /** after the profile: a trace whose long tasks are taken apart by kind of work (bench/lib/trace.ts) */
    traceSeconds: num("BENCH_TRACE_S", quick ? 5 : 15),
    shortScanMs: 1000,
    pgActivityRefreshS: 0.5,
    /** figure 9, per server size: inflight's start settles (its first 10 s hold the start's own reads and a first
     * calibration from pg_stat_statements), then no query running, then cold scans (after a warm-up), then the bare reads */
    sizeSettleSeconds: num("BENCH_SIZE_SETTLE_S", quick ? 3 : 12),
    sizeIdleSeconds: num("BENCH_SIZE_IDLE_S", quick ? 5 : 20),
    /** before the scans are counted: until inflight has read pg_aios's cost from pg_stat_statements, at most this */
    sizeWarmupSeconds: num("BENCH_SIZE_WARMUP_S", quick ? 8 : 25),
    sizeScanSeconds: num("BENCH_SIZE_SCAN_S", quick ? 10 : 40),
    /** each bare read at pgbench -R sizeBareRate for this long */
    sizeBareSeconds: num("BENCH_SIZE_BARE_S", quick ? 3 : 10),
    sizeBareRate: 10,
    /** the soak (BENCH_ONLY=soak): one server at the shipped defaults for this long, read this often */
    soakMin: num("BENCH_SOAK_MIN", quick ? 4 : 30),
    soakEverySeconds: num("BENCH_SOAK_EVERY_S", 30),
    /** INFLIGHT_WINDOW for the soak's server (a shorter window fills sooner, for looking into a growth); unset: the shipped 15 minutes */
    soakWindow: env.BENCH_SOAK_WINDOW ?? null,
    /** more node options for the soak's server (say --inspect=127.0.0.1:9361 to read its heap from outside) */
    soakNodeOptions: env.BENCH_SOAK_NODE_OPTIONS ?? "",
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
  /** figure 9: the one inflight on each server size */
  size: "bench_inflight_size",
  /** figure 11: the collector watching cold scans' time left */
  timeLeft: "bench_inflight_time_left",
  /** the soak: one server at the shipped defaults for half an hour */
  soak: "bench_inflight_soak",
};

export type Roles = typeof ROLES;

/** Figure 9's servers, one at a time: pg_aios walks about max_connections x io_max_concurrency handle slots. */
export const SIZES = [
  { maxConnections: 100, ioMaxConcurrency: 16 },
  { maxConnections: 100, ioMaxConcurrency: 64 },
  { maxConnections: 1000, ioMaxConcurrency: 16 },
  { maxConnections: 1000, ioMaxConcurrency: 64 },
] as const;

export type ServerSize = (typeof SIZES)[number];
