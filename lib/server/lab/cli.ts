import "server-only";
import { writeFileSync } from "node:fs";
import { NO_EXPLAIN_IO, readAheadLimits } from "../../model/lab/explain-io";
import { runsCsv, summaryTable } from "../../model/lab/export";
import { valueLabel } from "../../schemas/levers";
import { labResult } from "../../model/lab/result";
import { summarize } from "../../model/lab/summary";
import { IO_METHODS, type IoMethod } from "../../schemas/enums";
import type { LabExport, LabRun } from "../../schemas/lab";
import { formatDuration, formatNumber } from "../../format";
import { ensureDemoDatabase } from "../demo/seed";
import { ConfigError, labHistoryConfig, type HistoryConfig } from "../config/config";
import { HELP, UsageError, parse, type Args } from "./cli-args";
import { methodOrigin, withClient } from "./cluster";
import { keepLabResult } from "./keep";
import { presetStatement } from "./presets";
import { runLab } from "./runner";
import { commandCluster } from "./shell";
import { isLabInputError, prepareLab, type LabStatement, type PreparedLab } from "./statement";

export { HELP } from "./cli-args";

// `inflight lab` (`npm run lab` in a checkout): the labs' A/B for a cluster
// the user controls. A checkout loads it through vite's runnerImport
// (scripts/lab.mjs), the package ships it bundled (dist/lab.mjs,
// scripts/prepack.mjs); nothing here imports at run time (the module runner
// is closed once this module is loaded).

const say = (line: string) => process.stderr.write(`[lab] ${line}\n`);

/** Returns the exit code: 0 done, 1 a run or the restore failed, 2 bad usage or a refused request, 130 stopped by Ctrl-C. */
export async function main(argv: string[]): Promise<number> {
  let args: Args;
  let history: HistoryConfig | null;
  try {
    const parsed = parse(argv);
    if (parsed === "help") {
      process.stdout.write(HELP);
      return 0;
    }
    args = parsed;
    history = args.history ? labHistoryConfig() : null;
  } catch (err) {
    if (!(err instanceof UsageError || err instanceof ConfigError)) throw err;
    process.stderr.write(`lab: ${err.message} (inflight lab --help)\n`);
    return 2;
  }
  const cluster = commandCluster({ url: args.url, restart: args.restart, dropCache: args.dropCache, dataDir: args.dataDir });
  const controller = new AbortController();
  const onSigint = () => {
    if (!controller.signal.aborted) say(`Ctrl-C: stopping; putting ${args.lever} back first`);
    else say(`still putting ${args.lever} back; it is not skipped`);
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    return await labOnce(args, history, cluster, controller.signal);
  } catch (err) {
    const message = ((err as Error).message ?? String(err)).replace(/\s+/g, " ");
    // A refused request names its option: "--sql: must be one read-only SELECT ...".
    process.stderr.write(`lab: ${isLabInputError(err) ? `--${message}` : message}\n`);
    return isLabInputError(err) ? 2 : 1;
  } finally {
    process.off("SIGINT", onSigint);
  }
}

/** The statement, its values (io_method's default: every method the build offers), checked and prepared. */
async function prepare(args: Args, cluster: ReturnType<typeof commandCluster>): Promise<{ prepared: PreparedLab; values: string[] }> {
  if (args.seedMb !== null) {
    const database = decodeURIComponent(new URL(args.url).pathname.slice(1)) || "postgres";
    const urlFor = (db: string) => Object.assign(new URL(args.url), { pathname: `/${encodeURIComponent(db)}` }).toString();
    await ensureDemoDatabase({ superuserUrl: urlFor }, { database, tableMb: args.seedMb, log: say });
  }
  const { statement, offered } = await withClient(args.url, async (client) => {
    const origin = await methodOrigin(client);
    const s: LabStatement =
      args.query === "custom"
        ? { sql: args.sql!, settings: [], readRole: null, custom: true }
        : await presetStatement(client, args.query, args.table, null);
    return { statement: s, offered: origin.offered };
  });
  const values = args.values ?? IO_METHODS.filter((m) => offered.includes(m));
  return { prepared: await prepareLab(cluster, statement, args.lever, values), values };
}

function coldText(args: Args, prepared: PreparedLab, cluster: ReturnType<typeof commandCluster>): string {
  if (args.lever === "io_method") return cluster.cold;
  const buffers = prepared.evictIn
    ? "PostgreSQL's buffers emptied with pg_buffercache_evict_all()"
    : "PostgreSQL's buffers NOT emptied (no pg_buffercache extension in --url's database)";
  const page = cluster.dropCache ? `the page cache dropped with: ${args.dropCache}` : "the OS page cache NOT dropped (no --drop-cache)";
  return `set by ALTER SYSTEM and a reload before every run (no restart), ${buffers}, ${page}`;
}

const ranLine = (args: Args, r: LabRun) =>
  `  ${valueLabel(args.lever, r.value ?? r.method)}: ${formatDuration(r.executionMs)}${r.sessionsMs ? ` (median of ${r.sessionsMs.map((ms) => formatDuration(ms)).join(", ")})` : ""}, read wait ${r.readWaitMs === null ? "unknown" : formatDuration(r.readWaitMs)}, ${formatNumber(r.sharedRead)} blocks read${r.workers && args.lever !== "effective_io_concurrency" ? `, io workers seen ${r.workers.min === r.workers.max ? r.workers.min : `${r.workers.min}-${r.workers.max}`}` : ""}`;

async function labOnce(
  args: Args,
  history: HistoryConfig | null,
  cluster: ReturnType<typeof commandCluster>,
  signal: AbortSignal,
): Promise<number> {
  const { prepared, values } = await prepare(args, cluster);
  const cold = coldText(args, prepared, cluster);
  if (!cluster.dropCache) say("no --drop-cache: the OS page cache is not dropped, so only PostgreSQL's buffers are cold");
  const sessions = args.concurrency > 1 ? `, ${args.concurrency} sessions at once` : "";
  say(
    `PostgreSQL ${prepared.serverVersion}, io_method ${prepared.origin.method}; ${args.lever} ${values.join(" / ")}, ${args.runs} cold runs each${sessions}; ${prepared.files.length} files dropped before each run`,
  );
  const outcome = await runLab(cluster, prepared, {
    lever: args.lever,
    values,
    concurrency: args.concurrency,
    runs: args.runs,
    signal,
    progress: (p) => {
      if (/: (restarting|ALTER SYSTEM)/.test(p.phase)) say(`${p.done + 1}/${p.total} ${p.phase.split(":")[0]}`);
    },
    ran: (r) => say(ranLine(args, r)),
  });
  const summary = summarize(outcome.runs, values, args.lever);
  process.stdout.write(
    `${prepared.statement.custom ? "SQL" : `the demo's ${args.query === "seq" ? "sequential" : "bitmap heap"} scan`}: ${prepared.statement.sql}\n`,
  );
  const each = args.concurrency > 1 ? `\nsessions: ${args.concurrency} at once; a run's time is the median of theirs\n` : "";
  process.stdout.write(`cold: ${cold}\n${each}\n${summary.length ? summaryTable(summary, args.lever) : "(no run finished)"}\n`);
  const limits = readAheadLimits(summary);
  if (limits.length || !prepared.explainIo) process.stdout.write(`\n${prepared.explainIo ? limits.join("\n") : NO_EXPLAIN_IO}\n`);
  const report: LabExport = {
    state: outcome.error ? "failed" : "done",
    request: {
      query: args.query,
      sql: prepared.statement.sql,
      settings: prepared.statement.settings.map(([n, v]) => [n, v]),
      methods: args.lever === "io_method" ? (values as IoMethod[]) : [prepared.origin.method],
      runs: args.runs,
      lever: args.lever,
      values,
      concurrency: args.concurrency,
    },
    startedAt: outcome.runs[0]?.at ?? null,
    finishedAt: Date.now(),
    progress: { done: outcome.runs.length, total: values.length * args.runs, phase: outcome.error ? "stopped" : "done" },
    runs: outcome.runs,
    summary,
    error: outcome.error,
    restoredTo: outcome.restoredTo,
    cold,
    explainIo: prepared.explainIo,
    serverVersion: prepared.serverVersion,
    explains: outcome.explains,
  };
  if (args.json) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  if (args.csv) writeFileSync(args.csv, runsCsv(outcome.runs));
  if (outcome.restoredTo) say(`${args.lever} is back to ${outcome.restoredTo}`);
  await keep(args, history, prepared, summary, values);
  if (outcome.error) process.stderr.write(`lab: ${outcome.error}\n`);
  return signal.aborted ? 130 : outcome.error ? 1 : 0;
}

/** The result into inflight's history, when every value was measured; a failure to keep it is said, not fatal. */
async function keep(
  args: Args,
  history: HistoryConfig | null,
  prepared: PreparedLab,
  summary: ReturnType<typeof summarize>,
  values: string[],
): Promise<void> {
  const result = labResult(summary, {
    at: Date.now(),
    lever: args.lever,
    values,
    concurrency: args.concurrency,
    rounds: args.runs,
    query: args.query,
    sql: prepared.statement.sql,
    ioMethod: prepared.origin.method,
    serverVersion: prepared.serverVersion,
  });
  if (!result) return void say("the result is not kept in the history: not every value was measured");
  if (!history) return void say(args.history ? "the result is not kept: INFLIGHT_HISTORY is off" : "the result is not kept (--no-history)");
  try {
    say(`the result is kept in the history: ${await keepLabResult(args.url, result, history)}`);
  } catch (err) {
    say(`the result could not be kept in the history: ${((err as Error).message ?? String(err)).split("\n")[0]}`);
  }
}
