// Helpers for tests of query runs: a collector watching the run's (or a
// test's own) PostgreSQL 18, runs made on purpose and found again, EXPLAIN's
// own figures, and CPU pinning for the sampled-share comparison.
import { spawnSync } from "node:child_process";
import os from "node:os";
import type pg from "pg";
import { Collector } from "../../lib/server/collector/collector";
import type { Cadences } from "../../lib/server/collector/steps/step";
import { expect } from "vitest";
import type { QueryRun } from "../../lib/schemas/runs";
import { verdictText, VERDICT_MIN_SAMPLES, VERDICT_MINORITY_SHARE } from "../../lib/model/window/verdict";
import { testPg, waitFor, TEST_COLLECTOR } from "./pg";

const PG = testPg();
/** No table in the demo has 'z' in its payload (hex only): these filters read everything, match nothing. */
export const SCAN = `SELECT count(*) FROM ${PG.table} WHERE payload LIKE '%zz%'`;
/** The same scan with a CPU-heavy filter: ~1 s cold, so progress can be sampled many times. */
export const SLOW_SCAN = `SELECT count(*) FROM ${PG.table} WHERE md5(payload) LIKE '%zz%'`;
export const PARALLEL =
  "SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0";

export interface Watch {
  collector: Collector;
  stop(): Promise<void>;
}

/** A collector with one viewer, so it samples at the given fast cadence. */
export async function watching(url: string, sampleMs: number): Promise<Watch> {
  const collector = new Collector({
    id: "q",
    name: "q",
    demo: false,
    watchedSampleMs: sampleMs,
    idleSampleMs: 1000,
    windowMs: 10 * 60_000,
    ...TEST_COLLECTOR,
  });
  const unsubscribe = collector.feed.subscribe(() => undefined);
  collector.start(url);
  await waitFor("collector up", () => collector.info().status === "up" && collector.window.allTicks().length > 3);
  return {
    collector,
    async stop() {
      unsubscribe();
      await collector.stop();
    },
  };
}

export async function backendPid(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  return rows[0].pid;
}

/** Runs of `pid` that started at or after `from` (ms). */
export function runsOf(w: Watch, pid: number, from: number): QueryRun[] {
  return w.collector.window.queries().filter((q) => q.pid === pid && q.startedAt >= from - 5);
}

/** The run's text is `sql` (pg_stat_activity may cut a long one short). */
const isRunOf = (run: QueryRun, sql: string) => run.query.length > 0 && sql.startsWith(run.query);

/** Runs `sql` on `client` until `done(run)` holds for the run it made (a cold read can be too quick to sample). */
export async function sampledRun(
  w: Watch,
  client: pg.Client,
  sql: string,
  done: (run: QueryRun) => boolean,
  prepare: () => Promise<void>,
  tries = 4,
): Promise<QueryRun> {
  const pid = await backendPid(client);
  let last: QueryRun | undefined;
  for (let attempt = 0; attempt < tries; attempt++) {
    await prepare();
    const from = Date.now();
    await client.query(sql);
    // Its own run: a statement the session ran just before (a SET) can start within runsOf's slack.
    last = await waitFor("the run ended", () => runsOf(w, pid, from).find((r) => r.endedAt !== null && isRunOf(r, sql)), 3_000).catch(
      () => undefined,
    );
    if (last && done(last)) return last;
  }
  throw new Error(`no run of ${sql} met the condition in ${tries} tries; last: ${JSON.stringify(last)}`);
}

export interface Explained {
  execMs: number;
  readMs: number;
}

export function parseExplain(rows: { "QUERY PLAN": string }[]): Explained {
  const text = rows.map((r) => r["QUERY PLAN"]).join("\n");
  const exec = /Execution Time: ([\d.]+) ms/.exec(text);
  if (!exec) throw new Error(`no Execution Time in:\n${text}`);
  // The top node's I/O Timings include its children's.
  const read = /I\/O Timings: shared read=([\d.]+)/.exec(text);
  return { execMs: Number(exec[1]), readMs: read ? Number(read[1]) : 0 };
}

/** CPU affinity through taskset: the processes' masks before, to put back. */
export function pin(pids: number[], cpus: string): Map<number, string> {
  const before = new Map<number, string>();
  for (const pid of pids) {
    const current = spawnSync("taskset", ["-p", String(pid)], { encoding: "utf8" });
    const mask = /mask: ([0-9a-f]+)/.exec(current.stdout)?.[1];
    if (current.status !== 0 || !mask) throw new Error(`taskset -p ${pid}: ${current.stderr}`);
    before.set(pid, mask);
    const set = spawnSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { encoding: "utf8" });
    if (set.status !== 0) throw new Error(`taskset -c ${cpus} ${pid}: ${set.stderr}`);
  }
  return before;
}

export function unpin(masks: Map<number, string>): void {
  for (const [pid, mask] of masks) spawnSync("taskset", ["-a", "-p", mask, String(pid)]);
}

/** Why the processes cannot be pinned to cores of their own here, or null when they can. */
export const cannotPin: string | null =
  os.availableParallelism() < 2
    ? `${os.availableParallelism()} core: the observer cannot have a core of its own`
    : spawnSync("taskset", ["-V"]).status !== 0
      ? "no taskset (util-linux) to pin the processes with"
      : null;

/** The collector's own session: its client, and the backend pid a server gave it. Other test
 * files watch the same server at the same time, each with sessions named 'inflight' too. */
export function ownSession(collector: Collector): { client: pg.Client; pid: number } {
  const client = (collector as unknown as { connection: { current: pg.Client | null } }).connection.current;
  if (!client) throw new Error("the collector has no session");
  return { client, pid: (client as unknown as { processID: number }).processID };
}

/**
 * A run of index lookups, as inflight must judge it. PostgreSQL 18 reads them
 * synchronously, but does not promise zero async handles meanwhile (fresh
 * machines here caught one in one sample, and one in 8 samples of a run): the
 * verdict is weighed on the shares (lib/model/window/verdict.ts), an async minority
 * named, never flipping it. How few they are is PostgreSQL's, not asserted.
 */
export function expectLookupVerdict(run: QueryRun): void {
  const { asyncSamples: a, syncSamples: s } = run;
  if (a < VERDICT_MIN_SAMPLES || a / (a + s) < VERDICT_MINORITY_SHARE) {
    expect(run.verdict, JSON.stringify(run)).toBe("sync");
    expect(verdictText(run)).toMatch(
      a
        ? /^synchronous; (waiting on async reads in \d+ of \d+ samples?|(an async read|async reads) in flight in \d+ of \d+ samples? that read pg_aios)$/
        : /^synchronous$/,
    );
  } else expect(run.verdict, JSON.stringify(run)).toBe("async");
}

/** EXPLAIN's read share and the samples', and `margin`: the 5 points, plus twice the samples' own standard error
 * (CI: 0.060 of 232 samples against EXPLAIN's 0.117 without checksums, 0.7 points past 5 alone). */
export function readShares(out: { explained: Explained; run: QueryRun }[], n = out.reduce((k, m) => k + m.run.samples, 0)) {
  const sampled = out.reduce((k, m) => k + m.run.aioWaitSamples + m.run.readWaitSamples, 0) / n;
  const execMs = out.reduce((k, m) => k + m.explained.execMs, 0);
  const margin = 0.05 + 2 * Math.sqrt((sampled * (1 - sampled)) / n);
  return {
    explain: out.reduce((k, m) => k + m.explained.readMs, 0) / execMs,
    sampled,
    samples: n,
    perSecond: n / (execMs / 1000),
    margin,
  };
}

/** A watched collector as the pg_wait_sampling tests start it (100 ms polls asked for, a 10-minute window), with a viewer. */
export function watchPgws(url: string, cadences: Partial<Cadences> = {}): { collector: Collector; stop: () => Promise<void> } {
  const collector = new Collector({
    id: "pgws",
    name: "pgws",
    demo: false,
    watchedSampleMs: 100,
    idleSampleMs: 1000,
    windowMs: 10 * 60_000,
    ...TEST_COLLECTOR,
    cadences: { ...TEST_COLLECTOR.cadences, ...cadences },
  });
  const unsubscribe = collector.feed.subscribe(() => undefined);
  collector.start(url);
  return { collector, stop: async () => (unsubscribe(), await collector.stop()) };
}
