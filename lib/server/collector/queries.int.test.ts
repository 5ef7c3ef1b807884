// Size: one collector watches the run's shared PostgreSQL for every case; each case is one kind of statement and its run, told apart from the others the same watch saw.
// Issue 3: which queries use async reads, and how much of their time is read
// wait. Real statements against the run's PostgreSQL 18 (io_method worker,
// track_io_timing on, pg_stat_statements), watched through a Collector.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUERIES, type QueryName } from "../pg/queries";
import { sqlText } from "../pg/run";
import type { QueryRun } from "../../schemas/runs";
import { snapshotPayload } from "../payloads/window";
import { connect, evictFromPageCache, testPg, waitFor, TEST_COLLECTOR } from "../../../test/support/pg";
import { Collector } from "./collector";

import {
  backendPid,
  expectLookupVerdict,
  runsOf,
  sampledRun,
  watching,
  PARALLEL,
  SLOW_SCAN,
  type Watch,
} from "../../../test/support/watch";

const PG = testPg();

describe("query runs against PostgreSQL 18 (io_method = worker)", () => {
  let admin: pg.Client;
  let w: Watch;
  beforeAll(async () => {
    admin = await connect(PG.superuserUrl);
    w = await watching(PG.monitorUrl, 20);
  });
  afterAll(async () => {
    await w?.stop();
    await admin?.end();
  });

  /** Runs the slow scan cold, reading the run's progress from the window while it runs. */
  async function scanWatchingProgress(scanner: pg.Client, pid: number): Promise<{ progress: number[]; runs: QueryRun[] }> {
    await evictFromPageCache(admin, PG.dataDir, PG.table);
    const from = Date.now();
    let running = true;
    const scan = scanner.query(SLOW_SCAN).finally(() => (running = false));
    const progress: number[] = [];
    while (running) {
      const run = runsOf(w, pid, from).find((r) => r.endedAt === null);
      if (run?.progress != null && run.progress !== progress.at(-1)) progress.push(run.progress);
      await new Promise((r) => setTimeout(r, 20));
    }
    await scan;
    await waitFor("the run ended", () => runsOf(w, pid, from).every((r) => r.endedAt !== null));
    return { progress, runs: runsOf(w, pid, from) };
  }

  // Under load the collector may see only part of a scan (pg_aios spaced out by the budget,
  // slots missed): CI here saw five rising figures spanning 0.14 of the table. A scan seen
  // over too little of its length is scanned again, at most ATTEMPTS times.
  const ATTEMPTS = 5;
  const span = (progress: number[]) => (progress.length > 0 ? progress.at(-1)! - progress[0] : 0);

  function expectRising(progress: number[]): void {
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]);
  }

  it("a cold sequential scan: one async run of public.readings, its progress rising while it runs", async () => {
    const scanner = await connect(PG.superuserUrl, "queries-seqscan");
    try {
      // A synchronized scan may begin mid-table; this one begins at block 0.
      await scanner.query("SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = off");
      const pid = await backendPid(scanner);
      let seen = { progress: [] as number[], runs: [] as QueryRun[] };
      for (let attempt = 0; attempt < ATTEMPTS && (seen.progress.length < 5 || span(seen.progress) <= 0.3); attempt++) {
        seen = await scanWatchingProgress(scanner, pid);
        expect(seen.runs).toHaveLength(1);
        expect(seen.runs[0].verdict).toBe("async");
      }
      expect(seen.progress.length).toBeGreaterThanOrEqual(5);
      expectRising(seen.progress);
      expect(span(seen.progress)).toBeGreaterThan(0.3);

      const run = seen.runs[0];
      expect(run).toMatchObject({ verdict: "async", progressRelation: PG.table, workerPids: [] });
      expect(run.aioSamples).toBeGreaterThan(0);
      expect(run.relations.find((r) => r.name === PG.table)).toMatchObject({ read: "async" });
      expect(run.relations.find((r) => r.name === PG.table)!.blocks).toBeGreaterThan(10_000);
    } finally {
      await scanner.end();
    }
  });

  // PostgreSQL does not promise where a synchronized scan begins (here: where the
  // last scan stopped, most of the time); the progress figure is what inflight
  // promises, whatever block it begins at. The wrap itself: lib/model/window/runs.test.ts.
  it("a synchronized scan, which may begin mid-table and wrap: progress still rises from near 0", async () => {
    const scanner = await connect(PG.superuserUrl, "queries-syncscan");
    try {
      await scanner.query(
        "SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = on; SET enable_indexscan = off; SET enable_bitmapscan = off",
      );
      const pid = await backendPid(scanner);
      let seen = { progress: [] as number[], runs: [] as QueryRun[] };
      const seenEnough = (p: number[]) => p.length >= 5 && p[0] < 0.3 && p.at(-1)! > 0.5;
      for (let attempt = 0; attempt < ATTEMPTS && !seenEnough(seen.progress); attempt++) {
        // A scan that stops past the middle leaves the table's scan position there.
        await scanner.query(`SELECT id FROM ${PG.table} WHERE id > 300000 LIMIT 1`);
        seen = await scanWatchingProgress(scanner, pid);
      }
      expect(seen.progress.length).toBeGreaterThanOrEqual(5);
      expectRising(seen.progress);
      // Were it the block position, a scan begun past the middle would start past 0.5.
      expect(seen.progress[0]).toBeLessThan(0.3);
      expect(seen.progress.at(-1)!).toBeGreaterThan(0.5);
    } finally {
      // Leave the table's scan position near block 0, as other tests found it.
      await scanner.query(`SELECT id FROM ${PG.table} WHERE id = 1 LIMIT 1`).catch(() => undefined);
      await scanner.end();
    }
  });

  it("a loop of index point lookups on a cold index: a synchronous verdict, any async sample a named minority, the index named", async () => {
    const looker = await connect(PG.superuserUrl, "queries-lookups");
    try {
      // A nested loop: one index probe per key, the way an OLTP join reads.
      await looker.query(
        "SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_bitmapscan = off; SET enable_seqscan = off; SET max_parallel_workers_per_gather = 0",
      );
      const { rows } = await looker.query<{ max: string }>(`SELECT max(id) AS max FROM ${PG.table}`);
      const ids = Array.from({ length: 3000 }, () => 1 + Math.floor(Math.random() * Number(rows[0].max)));
      const sql = `SELECT sum(r.reading) FROM unnest('{${ids.join(",")}}'::bigint[]) AS k(id) JOIN ${PG.table} r ON r.id = k.id`;
      // A run's relations are the files pg_aios caught it reading: nothing promises a read of the
      // index is in flight when pg_aios is read (the heap's are more), so a try counts once one was.
      const { rows: index } = await looker.query<{ filenode: number }>(`SELECT pg_relation_filenode('${PG.table}_pkey') AS filenode`);
      const run = await sampledRun(
        w,
        looker,
        sql,
        (r) => r.syncSamples > 1 && r.relations.some((x) => x.filenode === Number(index[0].filenode)),
        () => evictFromPageCache(admin, PG.dataDir, PG.table),
        6,
      );
      // PostgreSQL 18 reads them synchronously: most samples say so; the verdict follows the shares.
      expect(run.syncSamples, JSON.stringify(run)).toBeGreaterThan(run.asyncSamples);
      expect(run.progress).toBeNull();
      expectLookupVerdict(run);
      expect(run.readWaitSamples).toBeGreaterThan(0);
      await waitFor("the index named", () =>
        w.collector.window.run(run.id)?.relations.some((r) => r.name === `${PG.table}_pkey` && r.read === "sync"),
      );
    } finally {
      await looker.end();
    }
  });

  it("a parallel sequential scan: one run, its workers folded in", async () => {
    const scanner = await connect(PG.superuserUrl, "queries-parallel");
    try {
      await scanner.query(PARALLEL);
      const { rows } = await scanner.query<{ "QUERY PLAN": string }>(`EXPLAIN ${SLOW_SCAN}`);
      expect(rows.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(/Workers Planned: 2/);
      const pid = await backendPid(scanner);
      const run = await sampledRun(
        w,
        scanner,
        SLOW_SCAN,
        (r) => r.workerPids.length > 0 && r.aioSamples > 0,
        () => evictFromPageCache(admin, PG.dataDir, PG.table),
      );
      expect(run.verdict).toBe("async");
      expect(run.pid).toBe(pid);
      // No run of its own for any worker, and one run for the leader's statement.
      const all = w.collector.window.queries();
      expect(all.filter((q) => run.workerPids.includes(q.pid) && q.startedAt >= run.startedAt)).toEqual([]);
      expect(all.filter((q) => q.pid === pid && q.startedAt === run.startedAt)).toHaveLength(1);
      expect(run.relations.map((r) => r.name)).toContain(PG.table);
    } finally {
      await scanner.end();
    }
  });

  it("a bitmap heap scan of a clustered range reads async; the index it probes, synchronously", async () => {
    const scanner = await connect(PG.superuserUrl, "queries-bitmap");
    try {
      await scanner.query("SET enable_seqscan = off; SET enable_indexscan = off; SET max_parallel_workers_per_gather = 0");
      const sql = `SELECT count(*), avg(reading) FROM ${PG.table} WHERE id BETWEEN 1 AND 260000`;
      const { rows } = await scanner.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`);
      expect(rows.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(/Bitmap Heap Scan/);
      const run = await sampledRun(
        w,
        scanner,
        sql,
        (r) => r.aioSamples > 0,
        () => evictFromPageCache(admin, PG.dataDir, PG.table),
        6,
      );
      expect(run.verdict).toBe("async");
      await waitFor("the heap named", () =>
        w.collector.window.run(run.id)?.relations.some((r) => r.name === PG.table && r.read !== "sync"),
      );
    } finally {
      await scanner.end();
    }
  });

  it("VACUUM after updating rows reads async", async () => {
    const table = "public.vacuum_probe";
    const vacuumer = await connect(PG.superuserUrl, "queries-vacuum");
    try {
      await vacuumer.query(`DROP TABLE IF EXISTS ${table}`);
      await vacuumer.query(`CREATE TABLE ${table} WITH (autovacuum_enabled = off) AS SELECT * FROM ${PG.table}`);
      const run = await sampledRun(
        w,
        vacuumer,
        `VACUUM ${table}`,
        (r) => r.aioSamples > 0,
        async () => {
          await vacuumer.query(`UPDATE ${table} SET reading = reading + 1 WHERE id % 5 = 0`);
          await evictFromPageCache(admin, PG.dataDir, table);
        },
      );
      expect(run.verdict).toBe("async");
      expect(run.query).toMatch(/^VACUUM/);
      await waitFor("the table named", () => w.collector.window.run(run.id)?.relations.some((r) => r.name === table));
    } finally {
      await vacuumer.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
      await vacuumer.end();
    }
  });

  it("redacts a run's literals with pg_stat_statements' normalised text", async () => {
    const client = await connect(PG.superuserUrl, "queries-redact");
    try {
      await client.query("SET max_parallel_workers_per_gather = 0");
      const secret = "s3cr3t-4a1f";
      const sql = `SELECT count(*) FROM ${PG.table} WHERE md5(payload) = '${secret}'`;
      const run = await sampledRun(
        w,
        client,
        sql,
        (r) => r.queryId !== null,
        async () => undefined,
      );
      expect(run.query).toContain(secret);
      await waitFor(
        "the statement in pg_stat_statements",
        () => w.collector.window.statements.some((s) => s.queryId === run.queryId),
        15_000,
      );
      const redacted = snapshotPayload({ info: () => w.collector.info(), window: w.collector.window, redact: true }).queries.find(
        (q) => q.id === run.id,
      )!;
      expect(redacted.query).not.toContain(secret);
      expect(redacted.query).toBe(`SELECT count(*) FROM ${PG.table} WHERE md5(payload) = $1`);
      expect(snapshotPayload(w.collector).queries.find((q) => q.id === run.id)!.query).toContain(secret);
    } finally {
      await client.end();
    }
  });

  it("a run ends when its statement did (the backend's state_change), not at the next sample: exact at the idle cadence too", async () => {
    // No viewer: the idle cadence, one sample a second. A 1.2 s statement is seen at least once,
    // and the sample after it ends comes up to a second later.
    const idle = new Collector({
      id: "idle",
      name: "idle",
      demo: false,
      watchedSampleMs: 100,
      idleSampleMs: 1000,
      windowMs: 10 * 60_000,
      ...TEST_COLLECTOR,
    });
    idle.start(PG.monitorUrl);
    const client = await connect(PG.superuserUrl, "runs-end");
    try {
      await waitFor("idle collector up", () => idle.info().status === "up", 15_000);
      const pid = await backendPid(client);
      const from = Date.now();
      await client.query("SELECT pg_sleep(1.2)");
      // What the server says of that statement, while the session is idle after it.
      const { rows } = await admin.query<{ start: number; end: number }>(
        "SELECT (extract(epoch FROM query_start) * 1000)::float8 AS start, (extract(epoch FROM state_change) * 1000)::float8 AS end FROM pg_stat_activity WHERE pid = $1",
        [pid],
      );
      const run = await waitFor(
        "the run ended",
        () => idle.window.queries().find((q) => q.pid === pid && q.startedAt >= from - 5 && q.endedAt !== null),
        10_000,
      );
      expect(run.samples).toBeGreaterThanOrEqual(1);
      expect(run.startedAt).toBeCloseTo(rows[0].start, 0);
      expect(run.endedAt).toBeCloseTo(rows[0].end, 0);
      expect(run.endedAt! - run.startedAt).toBeGreaterThanOrEqual(1200);
      expect(run.endedAt!).toBeGreaterThanOrEqual(run.lastSeen);
    } finally {
      await client.end();
      await idle.stop();
    }
  });

  it("shows neither its own statements nor another inflight's as the workload", async () => {
    // A second inflight watching the same server, sampling fast.
    const other = await watching(PG.monitorUrl, 5);
    try {
      // Something of the workload to list: pg_stat_statements has been read since.
      await admin.query(`SELECT count(*) AS workload_marker FROM ${PG.table} WHERE id < 100`);
      const listed = (watch: Watch) => watch.collector.window.statements.some((s) => s.query.includes("workload_marker"));
      await waitFor("both list the workload", () => listed(w) && listed(other), 25_000);
      for (const watch of [w, other]) {
        // Other test files' helpers read pg_settings on this shared server too, marked as such: not inflight's.
        const own = watch.collector.window.statements.filter(
          (s) =>
            /pg_aios|pg_stat_io|pg_settings|pg_postmaster_start_time|pg_stat_statements\(/.test(s.query) &&
            !s.query.includes("/* test support */"),
        );
        expect(own.map((s) => s.query.slice(0, 200))).toEqual([]);
        // By its marker, or by how the statement begins (pg_stat_activity cuts a long text short).
        const ours = (Object.keys(QUERIES) as QueryName[]).map((name) => sqlText(name).slice(0, 40));
        const sampling = watch.collector.window
          .queries()
          .filter((q) => q.query.includes("/* inflight") || ours.some((start) => q.query.startsWith(start)));
        expect(sampling.map((q) => q.query.slice(0, 120))).toEqual([]);
      }
    } finally {
      await other.stop();
    }
  });
});
