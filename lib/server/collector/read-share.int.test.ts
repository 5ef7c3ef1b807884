// Read wait of a run: the sampled share against EXPLAIN's I/O Timings and
// pg_stat_statements' exact figures, on the run's PostgreSQL 18.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QueryRun } from "../../schemas/runs";
import { connect, evictFromPageCache, testPg, waitFor } from "../../../test/support/pg";

import {
  cannotPin,
  backendPid,
  parseExplain,
  pin,
  runsOf,
  unpin,
  watching,
  SCAN,
  type Explained,
  type Watch,
} from "../../../test/support/watch";

const PG = testPg();

describe("read wait: sampled share against EXPLAIN and pg_stat_statements", () => {
  /** At least this many runs, and then more until the runs hold MIN_SAMPLES samples (scans are shorter on a quiet machine). */
  const RUNS = 6;
  const MIN_SAMPLES = 70;
  const MAX_RUNS = 20;
  let admin: pg.Client;
  beforeAll(async () => {
    admin = await connect(PG.superuserUrl);
  });
  afterAll(async () => {
    await admin?.end();
  });

  /** Cold scans under EXPLAIN ANALYZE, each with its sampled run. */
  async function measure(w: Watch, scanner: pg.Client, sql: string, runs: number) {
    const pid = await backendPid(scanner);
    const out: { explained: Explained; run: QueryRun }[] = [];
    for (let i = 0; i < MAX_RUNS && (i < runs || out.reduce((n, m) => n + m.run.samples, 0) < MIN_SAMPLES); i++) {
      await evictFromPageCache(admin, PG.dataDir, PG.table);
      const from = Date.now();
      const explained = parseExplain((await scanner.query(`EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) ${sql}`)).rows);
      const run = await waitFor("the run ended", () => runsOf(w, pid, from).find((r) => r.endedAt !== null));
      out.push({ explained, run });
    }
    const explainShare = out.reduce((n, m) => n + m.explained.readMs, 0) / out.reduce((n, m) => n + m.explained.execMs, 0);
    const samples = out.reduce((n, m) => n + m.run.samples, 0);
    const sampledShare = out.reduce((n, m) => n + m.run.ioWaitSamples, 0) / samples;
    return { out, explainShare, sampledShare, samples };
  }

  const describeRuns = (m: Awaited<ReturnType<typeof measure>>) =>
    m.out
      .map(
        (x) =>
          `${(x.explained.readMs / x.explained.execMs).toFixed(2)}/${(x.run.ioWaitSamples / Math.max(1, x.run.samples)).toFixed(2)}(${x.run.samples})`,
      )
      .join(" ");

  /**
   * The query id of `sql`, as EXPLAIN (VERBOSE) shows it. With
   * pg_stat_statements.track = all that EXPLAIN counts as a call of `sql`
   * (0 ms): ask before the collector's first snapshot.
   */
  async function queryIdOf(client: pg.Client, sql: string): Promise<string> {
    const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (VERBOSE) ${sql}`);
    return /Query Identifier: (-?\d+)/.exec(rows.map((r) => r["QUERY PLAN"]).join("\n"))![1];
  }

  it("pg_stat_statements' exact read share agrees with EXPLAIN's I/O Timings; sampled agrees too, the observer pinned to a core of its own", async () => {
    const scanner = await connect(PG.superuserUrl, "queries-share");
    const sql = `${SCAN} AND reading > -1`;
    await scanner.query("SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = off");
    // The SELECT inside EXPLAIN ANALYZE is counted under its own query id.
    const queryId = await queryIdOf(scanner, sql);
    const w = await watching(PG.monitorUrl, 10);
    try {
      const free = await measure(w, scanner, sql, RUNS);
      let pinned: Awaited<ReturnType<typeof measure>> | null = null;
      if (cannotPin === null) {
        const { rows } = await admin.query<{ pid: number; role: string }>(
          `SELECT pid, CASE WHEN backend_type = 'io worker' THEN 'io' ELSE 'collector' END AS role FROM pg_stat_activity
           WHERE backend_type = 'io worker' OR (application_name = 'inflight' AND datname = current_database())`,
        );
        const io = rows.filter((r) => r.role === "io").map((r) => r.pid);
        const collectorPids = rows.filter((r) => r.role === "collector").map((r) => r.pid);
        expect(io.length).toBeGreaterThan(0);
        expect(collectorPids).toHaveLength(1);
        // The scan and the io workers on core 0; the observer (this process, the collector's backend) on core 1.
        const masks = new Map([...pin([await backendPid(scanner), ...io], "0"), ...pin([process.pid, ...collectorPids], "1")]);
        try {
          pinned = await measure(w, scanner, sql, RUNS);
        } finally {
          unpin(masks);
        }
      }
      console.log(
        `[read share] free: EXPLAIN ${free.explainShare.toFixed(2)} sampled ${free.sampledShare.toFixed(2)} (${free.samples} samples) runs ${describeRuns(free)}` +
          (pinned
            ? `\n[read share] pinned: EXPLAIN ${pinned.explainShare.toFixed(2)} sampled ${pinned.sampledShare.toFixed(2)} (${pinned.samples} samples) runs ${describeRuns(pinned)}`
            : ""),
      );

      // Exact: pg_stat_statements counts the same executions EXPLAIN measured.
      const all = [...free.out, ...(pinned?.out ?? [])];
      const stat = await waitFor(
        "the statement's figures",
        () => w.collector.window.statements.find((s) => s.queryId === queryId && s.calls >= all.length),
        15_000,
      );
      const readMs = all.reduce((n, m) => n + m.explained.readMs, 0);
      const execMs = all.reduce((n, m) => n + m.explained.execMs, 0);
      expect(stat.calls).toBe(all.length);
      expect(stat.readTime!).toBeCloseTo(readMs, -1);
      expect(Math.abs(stat.readTime! / stat.totalExecTime - readMs / execMs)).toBeLessThan(0.02);
      expect(stat.readShare).toBeCloseTo(stat.readTime! / stat.totalExecTime);

      // Sampled: an estimate, close to EXPLAIN only when the observer has a
      // core of its own. Over 14 runs of 6 scans here (89-273 samples at
      // 10 ms, other sessions loading the machine), pinned: sampled - EXPLAIN
      // from -0.05 to +0.09 (sd 0.04); free: -0.01 to +0.36 (mean +0.19), as
      // PG18-FACTS.md explains. 0.15 is about 3.5 sd of the pinned gap.
      // Where nothing can be pinned the check cannot be made: fail, saying so.
      if (!pinned) throw new Error(`the sampled share's accuracy was not checked: ${cannotPin}`);
      expect(pinned.samples).toBeGreaterThan(60);
      expect(Math.abs(pinned.sampledShare - pinned.explainShare)).toBeLessThan(0.15);
    } finally {
      await scanner.end();
      await w.stop();
    }
  });

  it("with track_io_timing off in a session, that statement's read time is unknown, and the note says so", async () => {
    const client = await connect(PG.superuserUrl, "queries-untimed");
    const sql = `${SCAN} AND sensor > -1`;
    const queryId = await queryIdOf(client, sql);
    const w = await watching(PG.monitorUrl, 50);
    try {
      await client.query("SET track_io_timing = off; SET max_parallel_workers_per_gather = 0");
      await evictFromPageCache(admin, PG.dataDir, PG.table);
      await client.query(sql);
      const stat = await waitFor("the statement's figures", () => w.collector.window.statements.find((s) => s.queryId === queryId), 15_000);
      expect(stat.sharedBlksRead).toBeGreaterThan(0);
      expect(stat.readTime).toBeNull();
      expect(stat.readShare).toBeNull();
      expect(w.collector.window.statementsNote).toMatch(/track_io_timing off in their session.*ALTER SYSTEM SET track_io_timing = on/);
    } finally {
      await client.end();
      await w.stop();
    }
  });
});
