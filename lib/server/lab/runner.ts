import "server-only";
import type pg from "pg";
import { explainFigures } from "../../lab/explain";
import { scanIo } from "../../lab/explain-io";
import { labOrder } from "../../lab/summary";
import type { IoMethod } from "../../schemas/enums";
import type { LabRun } from "../../schemas/lab";
import { connect, connectWhenUp, putBackConfig, putBackConfigFile, reloadConfig, runningMethod, setMethod, withClient, type LabCluster } from "./cluster";
import { inReadOnly, type PreparedLab } from "./statement";

export interface LabProgress {
  done: number;
  total: number;
  /** "round 2 of 5, worker: restarting" */
  phase: string;
}

export interface LabOptions {
  methods: readonly IoMethod[];
  runs: number;
  signal: AbortSignal;
  progress(p: LabProgress): void;
  /** each run as it ends */
  ran?(run: LabRun): void;
  /** each restart the lab made, by its server start time (ms) */
  restarted?(startedAt: number): void;
}

export interface LabOutcome {
  runs: LabRun[];
  explains: { round: number; method: IoMethod; explain: unknown }[];
  /** one line; null when every run finished */
  error: string | null;
  /** the io_method the server runs at the end: the one it started with, unless error says otherwise */
  restoredTo: string | null;
}

const oneLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ").trim();

class Stopped extends Error {
  constructor() {
    super("stopped before the end");
  }
}

/**
 * The write-ups' A/B, cold: for each round, each io_method in turn (the
 * order moving on each round), a restart into it, the tables' files dropped
 * from the OS page cache, and one EXPLAIN (ANALYZE, BUFFERS). Whatever
 * happens (an SQL error, a method that will not start, a stop), the server
 * ends on the io_method it started with; what went wrong is one line.
 */
export async function runLab(cluster: LabCluster, prepared: PreparedLab, options: LabOptions): Promise<LabOutcome> {
  const out: LabOutcome = { runs: [], explains: [], error: null, restoredTo: null };
  const steps = labOrder(options.methods, options.runs);
  const say = (done: number, phase: string) => options.progress({ done, total: steps.length, phase });
  try {
    for (const [i, { round, method }] of steps.entries()) {
      const where = `round ${round} of ${options.runs}, ${method}`;
      if (options.signal.aborted) throw new Stopped();
      try {
        say(i, `${where}: restarting into io_method = ${method}`);
        await switchTo(cluster, method, options);
        if (cluster.dropCache) {
          say(i, `${where}: dropping the tables' files from the page cache`);
          await cluster.dropCache(prepared.files);
        }
        if (options.signal.aborted) throw new Stopped();
        say(i, `${where}: running EXPLAIN (${explainOptions(prepared)})`);
        const explain = await explainOnce(cluster.url, prepared, options.signal);
        const f = explainFigures(explain);
        const io = prepared.explainIo ? scanIo(explain) : null;
        const run: LabRun = { round, method, ...f, readShare: f.readWaitMs !== null && f.executionMs > 0 ? f.readWaitMs / f.executionMs : null, io, at: Date.now() };
        out.runs.push(run);
        out.explains.push({ round, method, explain });
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
    say(out.runs.length, `putting io_method back to ${prepared.origin.method}`);
    try {
      out.restoredTo = await restore(cluster, prepared, options);
    } catch (err) {
      const why = `io_method could not be put back to ${prepared.origin.method}: ${oneLine(err)}`;
      out.error = out.error ? `${out.error}; and ${why}` : why;
    }
  }
  return out;
}

async function switchTo(cluster: LabCluster, method: IoMethod, options: LabOptions): Promise<void> {
  await withClient(cluster.url, (c) => setMethod(c, method));
  try {
    await cluster.restart(method);
  } catch (err) {
    throw new Error(`io_method = ${method} did not start: ${oneLine(err)}`, { cause: err });
  }
  const now = await withUp(cluster.url, runningMethod);
  if (now.method !== method) throw new Error(`after the restart io_method is ${now.method}, not ${method} (is it set on the command line or in a file that overrides postgresql.auto.conf?)`);
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
      throw new Error(`the server is down and ${dataDir}/postgresql.auto.conf could not be put right (${oneLine(err)}); give --data-dir where this machine sees it`);
    });
  }
  await cluster.restart(origin.method);
  const now = await withUp(cluster.url, runningMethod);
  if (now.method !== origin.method) throw new Error(`after the restart io_method is ${now.method}`);
  options.restarted?.(now.startedAt);
  return now.method;
}

/** 19's EXPLAIN takes IO too: the scan's prefetch distance and I/Os. */
function explainOptions(prepared: PreparedLab): string {
  return prepared.explainIo ? "ANALYZE, BUFFERS, IO" : "ANALYZE, BUFFERS";
}

/** One run in a session of its own; a stop cancels the statement from a second connection. */
async function explainOnce(url: string, prepared: PreparedLab, signal: AbortSignal): Promise<unknown> {
  const client = await connectWhenUp(url);
  const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
  const cancel = () => void withClient(url, (c) => c.query("SELECT pg_cancel_backend($1)", [pid])).catch(() => undefined);
  signal.addEventListener("abort", cancel, { once: true });
  try {
    return await inReadOnly(client, prepared.statement, async () => {
      const res = await client.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (${explainOptions(prepared)}, FORMAT JSON) ${prepared.statement.sql}`);
      return res.rows[0]["QUERY PLAN"];
    });
  } finally {
    signal.removeEventListener("abort", cancel);
    await client.end().catch(() => undefined);
  }
}
