import "server-only";
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { NO_EXPLAIN_IO, readAheadLimits } from "../../lab/explain-io";
import { runsCsv, summaryTable } from "../../lab/export";
import { summarize } from "../../lab/summary";
import { IO_METHODS, LAB_QUERIES, type IoMethod, type LabQuery } from "../../schemas/enums";
import type { LabExport } from "../../schemas/lab";
import { LAB_RUNS } from "../../schemas/params";
import { formatDuration, formatNumber } from "../../format";
import { ensureDemoDatabase } from "../demo/seed";
import { methodOrigin, withClient } from "./cluster";
import { presetStatement } from "./presets";
import { runLab } from "./runner";
import { commandCluster } from "./shell";
import { isLabInputError, prepareLab, type LabStatement } from "./statement";

// `inflight lab` (`npm run lab` in a checkout): the labs' A/B for a cluster
// the user controls. A checkout loads it through vite's runnerImport
// (scripts/lab.mjs), the package ships it bundled (dist/lab.mjs,
// scripts/prepack.mjs); nothing here imports at run time (the module runner
// is closed once this module is loaded).

export const HELP = `inflight lab --url URL --restart COMMAND [options]
(in a checkout: npm run lab -- --url URL --restart COMMAND [options])

The write-ups' A/B of io_method on a PostgreSQL 18 or 19 you control: one
query, cold, N runs per io_method, the methods taking turns within each
round; EXPLAIN (ANALYZE, BUFFERS) of every run, with IO on 19 (the scan's
prefetch distance and I/Os); the median execution time with the spread
(min-max) beside it, I/O Timings' read wait and read share. Whatever
happens (an SQL error, a method that will not start, Ctrl-C), the server is
left on the io_method it started with. It runs only against --url: it never
reads DATABASE_URL or INFLIGHT_TARGETS.

  --url URL           a superuser's postgres:// URL (ALTER SYSTEM, SET track_io_timing)
  --restart COMMAND   restarts the server (sh -c); {method} in it becomes the
                      io_method to start with (it is also set with ALTER SYSTEM first)
  --drop-cache CMD    run before each run (sh -c) to drop the OS page cache;
                      {files} becomes the tables' files (quoted), e.g.
                      'for f in {files}; do dd if="$f" iflag=nocache count=0 status=none; done'
                      Without it only PostgreSQL's buffers are cold (the restart)
  --data-dir DIR      the data directory as this machine sees it (default: the server's
                      data_directory): where {files} are, and postgresql.auto.conf is put
                      right if an io_method does not start
  --query seq|bitmap  the demo's sequential or bitmap heap scan of --table (default seq)
  --table NAME        the demo-shaped table (id, reading, payload) (default public.readings)
  --sql SQL           your own statement instead: one read-only SELECT
  --methods LIST      io_methods, comma-separated (default: every one the build offers)
  --runs N            runs per io_method (default ${LAB_RUNS.default}, ${LAB_RUNS.min}-${LAB_RUNS.max})
  --seed-mb N         first make the demo table (public.readings) of N MB in --url's database
  --json FILE         write the table, every run and its EXPLAIN output as JSON
  --csv FILE          write the runs as CSV
  --help

Example, the liburing PostgreSQL 18 of the tests (node scripts/iouring-pg.mjs):
  npm run lab -- --url "$URL" \\
    --restart 'node scripts/iouring-pg.mjs restart --data lab --io-method {method}' \\
    --drop-cache 'for f in {files}; do dd if="$f" iflag=nocache count=0 status=none; done'
`;

class UsageError extends Error {}

const OPTIONS = {
  url: { type: "string" },
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
  help: { type: "boolean" },
} as const;

interface Args {
  url: string;
  restart: string;
  dropCache: string | null;
  dataDir: string | null;
  query: LabQuery;
  table: string;
  sql: string | null;
  methods: IoMethod[] | null;
  runs: number;
  seedMb: number | null;
  json: string | null;
  csv: string | null;
}

function whole(name: string, raw: string | undefined, min: number, max: number): number | null {
  if (raw === undefined) return null;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`--${name}: must be a whole number from ${min} to ${max}`);
  return Number(raw);
}

function parse(argv: string[]): Args | "help" {
  let v;
  try {
    v = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message.split("\n")[0]);
  }
  if (v.help) return "help";
  if (!v.url) throw new UsageError("--url: a superuser's postgres:// URL is needed (the lab runs only against a cluster named here)");
  if (!/^postgres(ql)?:\/\//.test(v.url)) throw new UsageError("--url: must be a postgres:// URL");
  if (!v.restart) throw new UsageError("--restart: the command that restarts the server is needed");
  if (v.sql !== undefined && v.query !== undefined) throw new UsageError("--sql: give either --query or --sql");
  const query = (v.sql !== undefined ? "custom" : (v.query ?? "seq")) as LabQuery;
  if (!LAB_QUERIES.includes(query) || (query === "custom" && v.sql === undefined)) throw new UsageError("--query: must be seq or bitmap (or give --sql)");
  const methods = v.methods?.split(",").map((m) => m.trim()).filter(Boolean) ?? null;
  const unknown = methods?.find((m) => !(IO_METHODS as readonly string[]).includes(m));
  if (unknown) throw new UsageError(`--methods: ${unknown} is not an io_method (${IO_METHODS.join(", ")})`);
  if (methods && new Set(methods).size !== methods.length) throw new UsageError("--methods: names an io_method twice");
  return {
    url: v.url,
    restart: v.restart,
    dropCache: v["drop-cache"] ?? null,
    dataDir: v["data-dir"] ?? null,
    query,
    table: v.table ?? "public.readings",
    sql: v.sql ?? null,
    methods: methods as IoMethod[] | null,
    runs: whole("runs", v.runs, LAB_RUNS.min, LAB_RUNS.max) ?? LAB_RUNS.default,
    seedMb: whole("seed-mb", v["seed-mb"], 16, 65536),
    json: v.json ?? null,
    csv: v.csv ?? null,
  };
}

const say = (line: string) => process.stderr.write(`[lab] ${line}\n`);

/** Returns the exit code: 0 done, 1 a run or the restore failed, 2 bad usage or a refused request, 130 stopped by Ctrl-C. */
export async function main(argv: string[]): Promise<number> {
  let args: Args;
  try {
    const parsed = parse(argv);
    if (parsed === "help") {
      process.stdout.write(HELP);
      return 0;
    }
    args = parsed;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`lab: ${err.message} (inflight lab --help)\n`);
    return 2;
  }
  const cluster = commandCluster({ url: args.url, restart: args.restart, dropCache: args.dropCache, dataDir: args.dataDir });
  const controller = new AbortController();
  const onSigint = () => {
    if (!controller.signal.aborted) say("Ctrl-C: stopping; putting io_method back first");
    else say("still putting io_method back; it is not skipped");
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    return await labOnce(args, cluster, controller.signal);
  } catch (err) {
    const message = ((err as Error).message ?? String(err)).replace(/\s+/g, " ");
    // A refused request names its option: "--sql: must be one read-only SELECT ...".
    process.stderr.write(`lab: ${isLabInputError(err) ? `--${message}` : message}\n`);
    return isLabInputError(err) ? 2 : 1;
  } finally {
    process.off("SIGINT", onSigint);
  }
}

async function labOnce(args: Args, cluster: ReturnType<typeof commandCluster>, signal: AbortSignal): Promise<number> {
  if (args.seedMb !== null) {
    const database = decodeURIComponent(new URL(args.url).pathname.slice(1)) || "postgres";
    const urlFor = (db: string) => Object.assign(new URL(args.url), { pathname: `/${encodeURIComponent(db)}` }).toString();
    await ensureDemoDatabase({ superuserUrl: urlFor }, { database, tableMb: args.seedMb, log: say });
  }
  const { statement, offered } = await withClient(args.url, async (client) => {
    const origin = await methodOrigin(client);
    const s: LabStatement = args.query === "custom" ? { sql: args.sql!, settings: [], readRole: null, custom: true } : await presetStatement(client, args.query, args.table, null);
    return { statement: s, offered: origin.offered };
  });
  const methods = args.methods ?? IO_METHODS.filter((m) => offered.includes(m));
  const prepared = await prepareLab(cluster, statement, methods);
  if (!cluster.dropCache) say("no --drop-cache: the OS page cache is not dropped, so only PostgreSQL's buffers are cold");
  say(`PostgreSQL ${prepared.serverVersion}, io_method ${prepared.origin.method}; ${methods.join(" / ")}, ${args.runs} cold runs each; ${prepared.files.length} files dropped before each run`);
  const outcome = await runLab(cluster, prepared, {
    methods,
    runs: args.runs,
    signal,
    progress: (p) => {
      if (p.phase.includes(": restarting")) say(`${p.done + 1}/${p.total} ${p.phase.split(":")[0]}`);
    },
    ran: (r) => say(`  ${r.method}: ${formatDuration(r.executionMs)} (read wait ${r.readWaitMs === null ? "unknown" : formatDuration(r.readWaitMs)}, ${formatNumber(r.sharedRead)} blocks read)`),
  });
  const summary = summarize(outcome.runs, methods);
  process.stdout.write(`${statement.custom ? "SQL" : `the demo's ${args.query === "seq" ? "sequential" : "bitmap heap"} scan`}: ${prepared.statement.sql}\n`);
  process.stdout.write(`cold: ${cluster.cold}\n\n${summary.length ? summaryTable(summary) : "(no run finished)"}\n`);
  const limits = readAheadLimits(summary);
  if (limits.length || !prepared.explainIo) process.stdout.write(`\n${prepared.explainIo ? limits.join("\n") : NO_EXPLAIN_IO}\n`);
  const report: LabExport = {
    state: outcome.error ? "failed" : "done",
    request: { query: args.query, sql: prepared.statement.sql, settings: prepared.statement.settings.map(([n, v]) => [n, v]), methods, runs: args.runs },
    startedAt: outcome.runs[0]?.at ?? null,
    finishedAt: Date.now(),
    progress: { done: outcome.runs.length, total: methods.length * args.runs, phase: outcome.error ? "stopped" : "done" },
    runs: outcome.runs,
    summary,
    error: outcome.error,
    restoredTo: outcome.restoredTo,
    cold: cluster.cold,
    explainIo: prepared.explainIo,
    serverVersion: prepared.serverVersion,
    explains: outcome.explains,
  };
  if (args.json) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  if (args.csv) writeFileSync(args.csv, runsCsv(outcome.runs));
  if (outcome.restoredTo) say(`io_method is back to ${outcome.restoredTo}`);
  if (outcome.error) process.stderr.write(`lab: ${outcome.error}\n`);
  return signal.aborted ? 130 : outcome.error ? 1 : 0;
}
