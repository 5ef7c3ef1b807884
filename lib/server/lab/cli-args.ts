import "server-only";
import { parseArgs } from "node:util";
import { LAB_CONCURRENCY, LEVERS, leverValuesProblem } from "../../schemas/levers";
import { LAB_LEVERS, LAB_QUERIES, type LabLever, type LabQuery } from "../../schemas/enums";
import { LAB_RUNS } from "../../schemas/params";

// `inflight lab`'s command line: the help, and the flags checked into Args
// (a bad one is a UsageError naming it: one line, exit 2).

export const HELP = `inflight lab --url URL [--lever NAME --values LIST] [options]
(in a checkout: npm run lab -- --url URL ...)

The write-ups' A/B on a PostgreSQL 18 or 19 you control: one query, cold,
N rounds, the values of one setting taking turns within each round;
EXPLAIN (ANALYZE, BUFFERS) of every run, with IO on 19 (the scan's prefetch
distance and I/Os); per value the median execution time with the spread
(min-max) beside it, I/O Timings' read wait and read share. Whatever
happens (an SQL error, a value that will not apply, Ctrl-C), the server is
left on the value it started with. It runs only against --url: it never
reads DATABASE_URL or INFLIGHT_TARGETS.

Levers (--lever, default io_method):
  io_method                 restarts into each value (needs --restart); 1 session by default
  io_workers (18)           ALTER SYSTEM + pg_reload_conf(), never a restart, each value
  io_min_workers (19)       checked in force from a new session (io_workers: the io worker
  io_max_workers (19)       rows too) before its runs; 4 sessions at once by default: the io
                            workers are a queue only behind several scans
  effective_io_concurrency  by reload too; 1 session by default

  --url URL           a superuser's postgres:// URL (ALTER SYSTEM, SET track_io_timing)
  --lever NAME        the setting compared (default io_method)
  --values LIST       its values, comma-separated, the first the baseline, e.g. 1,3
                      (io_method: default every one the build offers)
  --concurrency N     sessions running the statement at once (${LAB_CONCURRENCY.min}-${LAB_CONCURRENCY.max}; default 4 for
                      io_workers / io_min_workers / io_max_workers, else 1); a round's
                      figure is the median of its sessions' execution times
  --rounds N          rounds: runs per value (default ${LAB_RUNS.default}, ${LAB_RUNS.min}-${LAB_RUNS.max}; --runs says the same)
  --restart COMMAND   restarts the server (sh -c); {method} in it becomes the io_method to
                      start with (set with ALTER SYSTEM first). Needed for --lever io_method
  --drop-cache CMD    run before each run (sh -c) to drop the OS page cache;
                      {files} becomes the tables' files (quoted), e.g.
                      'for f in {files}; do dd if="$f" iflag=nocache count=0 status=none; done'
                      Without it only PostgreSQL's buffers are cold
  --data-dir DIR      the data directory as this machine sees it (default: the server's
                      data_directory): where {files} are, and postgresql.auto.conf is put
                      right if the server is down at the end
  --query seq|bitmap  the demo's sequential or bitmap heap scan of --table (default seq)
  --table NAME        the demo-shaped table (id, reading, payload) (default public.readings)
  --sql SQL           your own statement instead: one read-only SELECT
  --methods LIST      io_methods to compare: the same as --lever io_method --values LIST
  --seed-mb N         first make the demo table (public.readings) of N MB in --url's database
  --json FILE         write the table, every run and its EXPLAIN output as JSON
  --csv FILE          write the runs as CSV
  --no-history        do not keep the result in inflight's history
  --help

The result (each value's median and spread) is kept in inflight's history
(INFLIGHT_HISTORY_FILE, default .inflight/history.db; INFLIGHT_HISTORY=off:
not kept), under the server's system identifier: the dashboard watching
that server finds it there. A reload lever's rounds empty PostgreSQL's
buffers with pg_buffercache_evict_all() where --url's database has the
pg_buffercache extension (else they are not emptied, and the table says so).

Examples:
  npm run lab -- --url "$URL" --lever io_workers --values 1,3 --concurrency 4 --rounds 3 \\
    --drop-cache 'for f in {files}; do dd if="$f" iflag=nocache count=0 status=none; done'
  npm run lab -- --url "$URL" --lever effective_io_concurrency --values 1,16 --rounds 3
  npm run lab -- --url "$URL" --methods sync,worker \\
    --restart 'node scripts/iouring-pg.mjs restart --data lab --io-method {method}'
`;

export class UsageError extends Error {}

const OPTIONS = {
  url: { type: "string" },
  lever: { type: "string" },
  values: { type: "string" },
  concurrency: { type: "string" },
  rounds: { type: "string" },
  restart: { type: "string" },
  "drop-cache": { type: "string" },
  "data-dir": { type: "string" },
  query: { type: "string" },
  table: { type: "string" },
  sql: { type: "string" },
  methods: { type: "string" },
  runs: { type: "string" },
  "seed-mb": { type: "string" },
  json: { type: "string" },
  csv: { type: "string" },
  "no-history": { type: "boolean" },
  help: { type: "boolean" },
} as const;

export interface Args {
  url: string;
  lever: LabLever;
  /** null: io_method's default, every method the build offers */
  values: string[] | null;
  concurrency: number;
  restart: string | null;
  dropCache: string | null;
  dataDir: string | null;
  query: LabQuery;
  table: string;
  sql: string | null;
  runs: number;
  seedMb: number | null;
  json: string | null;
  csv: string | null;
  history: boolean;
}

function whole(name: string, raw: string | undefined, min: number, max: number): number | null {
  if (raw === undefined) return null;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new UsageError(`--${name}: must be a whole number from ${min} to ${max}`);
  return Number(raw);
}

function leverAndValues(v: { lever?: string; values?: string; methods?: string }): { lever: LabLever; values: string[] | null } {
  if (v.lever !== undefined && !(LAB_LEVERS as readonly string[]).includes(v.lever))
    throw new UsageError(`--lever: must be one of ${LAB_LEVERS.join(", ")}`);
  const lever = (v.lever ?? "io_method") as LabLever;
  if (v.methods !== undefined && lever !== "io_method") throw new UsageError("--methods: only for --lever io_method (give --values)");
  if (v.methods !== undefined && v.values !== undefined) throw new UsageError("--values: give either --methods or --values");
  const raw = v.values ?? v.methods;
  const flag = v.values !== undefined ? "values" : "methods";
  if (raw === undefined) {
    if (lever !== "io_method") throw new UsageError(`--values: needed with --lever ${lever}, e.g. --values 1,3`);
    return { lever, values: null };
  }
  const values = raw
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
  const problem = leverValuesProblem(lever, values);
  if (problem) throw new UsageError(`--${flag}: ${problem}`);
  return { lever, values };
}

export function parse(argv: string[]): Args | "help" {
  let v;
  try {
    v = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message.split("\n")[0]);
  }
  if (v.help) return "help";
  if (!v.url) throw new UsageError("--url: a superuser's postgres:// URL is needed (the lab runs only against a cluster named here)");
  if (!/^postgres(ql)?:\/\//.test(v.url)) throw new UsageError("--url: must be a postgres:// URL");
  const { lever, values } = leverAndValues(v);
  if (!v.restart && lever === "io_method")
    throw new UsageError("--restart: the command that restarts the server is needed (io_method changes only with a restart)");
  if (v.sql !== undefined && v.query !== undefined) throw new UsageError("--sql: give either --query or --sql");
  if (v.runs !== undefined && v.rounds !== undefined) throw new UsageError("--rounds: give either --rounds or --runs");
  const query = (v.sql !== undefined ? "custom" : (v.query ?? "seq")) as LabQuery;
  if (!LAB_QUERIES.includes(query) || (query === "custom" && v.sql === undefined))
    throw new UsageError("--query: must be seq or bitmap (or give --sql)");
  return {
    url: v.url,
    lever,
    values,
    concurrency: whole("concurrency", v.concurrency, LAB_CONCURRENCY.min, LAB_CONCURRENCY.max) ?? LEVERS[lever].concurrency,
    restart: v.restart ?? null,
    dropCache: v["drop-cache"] ?? null,
    dataDir: v["data-dir"] ?? null,
    query,
    table: v.table ?? "public.readings",
    sql: v.sql ?? null,
    runs: whole(v.rounds !== undefined ? "rounds" : "runs", v.rounds ?? v.runs, LAB_RUNS.min, LAB_RUNS.max) ?? LAB_RUNS.default,
    seedMb: whole("seed-mb", v["seed-mb"], 16, 65536),
    json: v.json ?? null,
    csv: v.csv ?? null,
    history: !v["no-history"],
  };
}
