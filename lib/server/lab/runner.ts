import "server-only";
import type pg from "pg";
import { valueLabel } from "../../schemas/levers";
import { labOrder } from "../../model/lab/summary";
import type { IoMethod, LabLever } from "../../schemas/enums";
import type { LabRun } from "../../schemas/lab";
import {
  connect,
  connectWhenUp,
  putBackConfig,
  putBackConfigFile,
  reloadConfig,
  runningMethod,
  setMethod,
  withClient,
  type LabCluster,
} from "./cluster";
import { applyLever, evictBuffers, putBackLever } from "./reload";
import { explainOptions, runRound } from "./sessions";
import type { PreparedLab } from "./statement";

export interface LabProgress {
  done: number;
  total: number;
  /** "round 2 of 5, worker: restarting" */
  phase: string;
}

export interface LabOptions {
  /** the setting compared, and its values in order (io_method: the methods) */
  lever: LabLever;
  values: readonly string[];
  runs: number;
  /** sessions running the statement at once */
  concurrency: number;
  signal: AbortSignal;
  progress(p: LabProgress): void;
  /** each run as it ends */
  ran?(run: LabRun): void;
  /** each restart the lab made, by its server start time (ms) */
  restarted?(startedAt: number): void;
}

export interface LabOutcome {
  runs: LabRun[];
  explains: { round: number; method: IoMethod; value?: string; session?: number; explain: unknown }[];
  /** one line; null when every run finished */
  error: string | null;
  /** the lever's value the server runs at the end: the one it started with, unless error says otherwise */
  restoredTo: string | null;
}

const oneLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ").trim();

class Stopped extends Error {
  constructor() {
    super("stopped before the end");
  }
}

/**
 * The write-ups' A/B, cold: for each round, each value in turn (the order
 * moving on each round), applied (io_method: a restart into it; the others:
 * ALTER SYSTEM and a reload, checked in force from a new session), the
 * tables' files dropped from the OS page cache, and `concurrency` sessions
 * running EXPLAIN (ANALYZE, BUFFERS) at once. Whatever happens (an SQL
 * error, a value that will not apply, a stop), the server ends on the value
 * it started with; what went wrong is one line.
 */
export async function runLab(cluster: LabCluster, prepared: PreparedLab, options: LabOptions): Promise<LabOutcome> {
  const out: LabOutcome = { runs: [], explains: [], error: null, restoredTo: null };
  const { lever } = options;
  const steps = labOrder(options.values, options.runs);
  const say = (done: number, phase: string) => options.progress({ done, total: steps.length, phase });
  try {
    for (const [i, { round, method: value }] of steps.entries()) {
      const where = `round ${round} of ${options.runs}, ${valueLabel(lever, value)}`;
      if (options.signal.aborted) throw new Stopped();
      try {
        await applyValue(cluster, prepared, options, value, (phase) => say(i, `${where}: ${phase}`));
        if (options.signal.aborted) throw new Stopped();
        const sessions = options.concurrency > 1 ? `${options.concurrency} sessions at once` : "one session";
        say(i, `${where}: running EXPLAIN (${explainOptions(prepared)}), ${sessions}`);
        const { figures, explains } = await runRound(cluster.url, prepared, lever, options.concurrency, options.signal);
        const method = lever === "io_method" ? (value as IoMethod) : prepared.origin.method;
        const tag = lever === "io_method" ? {} : { value };
        if (figures.shown !== value) throw new Error(`the sessions ran with ${lever} = ${figures.shown}, not ${value}`);
        const run: LabRun = { round, method, ...tag, ...figures, at: Date.now() };
        out.runs.push(run);
        explains.forEach((explain, s) =>
          out.explains.push({ round, method, ...tag, ...(explains.length > 1 ? { session: s + 1 } : {}), explain }),
        );
        options.ran?.(run);
      } catch (err) {
        if (err instanceof Stopped || options.signal.aborted) throw new Stopped();
        throw new Error(`run ${i + 1} of ${steps.length} (${where}): ${oneLine(err)}`, { cause: err });
      }
    }
    say(steps.length, "done");
  } catch (err) {
    out.error = err instanceof Stopped ? `stopped before the end, after ${out.runs.length} of ${steps.length} runs` : oneLine(err);
  } finally {
    const origin = prepared.lever?.value ?? prepared.origin.method;
    say(out.runs.length, `putting ${lever} back to ${origin}`);
    try {
      out.restoredTo = prepared.lever
        ? await putBackLever(cluster.url, prepared.dataDir, prepared.lever)
        : await restore(cluster, prepared, options);
    } catch (err) {
      const why = `${lever} could not be put back to ${origin}: ${oneLine(err)}`;
      out.error = out.error ? `${out.error}; and ${why}` : why;
    }
  }
  return out;
}

/** The value in force and the round cold: a restart into an io_method, or a reload (then PostgreSQL's buffers emptied where the server can); the OS page cache dropped. */
async function applyValue(
  cluster: LabCluster,
  prepared: PreparedLab,
  options: LabOptions,
  value: string,
  say: (phase: string) => void,
): Promise<void> {
  if (options.lever === "io_method") {
    say(`restarting into io_method = ${value}`);
    await switchTo(cluster, value as IoMethod, options);
  } else {
    say(`ALTER SYSTEM SET ${options.lever} = ${value}, reloading`);
    await applyLever(cluster.url, options.lever, value);
    if (prepared.evictIn) {
      say("emptying PostgreSQL's buffers (pg_buffercache_evict_all)");
      await evictBuffers(cluster.url, prepared.evictIn);
    }
  }
  if (cluster.dropCache) {
    say("dropping the tables' files from the page cache");
    await cluster.dropCache(prepared.files);
  }
}

async function switchTo(cluster: LabCluster, method: IoMethod, options: LabOptions): Promise<void> {
  await withClient(cluster.url, (c) => setMethod(c, method));
  try {
    await cluster.restart(method);
  } catch (err) {
    throw new Error(`io_method = ${method} did not start: ${oneLine(err)}`, { cause: err });
  }
  const now = await withUp(cluster.url, runningMethod);
  if (now.method !== method)
    throw new Error(
      `after the restart io_method is ${now.method}, not ${method} (is it set on the command line or in a file that overrides postgresql.auto.conf?)`,
    );
  options.restarted?.(now.startedAt);
}

async function withUp<T>(url: string, body: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = await connectWhenUp(url);
  try {
    return await body(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Back to the configuration and the io_method of the start: with SQL when the server is up, by its file when it is down. */
async function restore(cluster: LabCluster, { origin, dataDir }: PreparedLab, options: LabOptions): Promise<string> {
  const client = await connect(cluster.url, 5_000).catch(() => null);
  if (client) {
    try {
      await putBackConfig(client, origin);
      if ((await runningMethod(client)).method === origin.method) {
        await reloadConfig(client);
        return origin.method;
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  } else {
    // Down: the io_method it was restarted into would not start. Put the file right, then start it as it was.
    await putBackConfigFile(dataDir, origin).catch((err: unknown) => {
      throw new Error(
        `the server is down and ${dataDir}/postgresql.auto.conf could not be put right (${oneLine(err)}); give --data-dir where this machine sees it`,
      );
    });
  }
  await cluster.restart(origin.method);
  const now = await withUp(cluster.url, runningMethod);
  if (now.method !== origin.method) throw new Error(`after the restart io_method is ${now.method}`);
  options.restarted?.(now.startedAt);
  return now.method;
}
