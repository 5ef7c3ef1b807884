import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { connect, evictFromPageCache, sizes, testPg, waitFor, TEST_COLLECTOR } from "../../../test/support/pg";
import { Collector } from "./collector";
import { expectLookupVerdict, ownSession } from "../../../test/support/watch";

const PG = testPg();

function makeCollector(sampleMs = 20): Collector {
  return new Collector({
    id: "t",
    name: "t",
    demo: false,
    watchedSampleMs: sampleMs,
    idleSampleMs: 1000,
    windowMs: 10 * 60_000,
    ...TEST_COLLECTOR,
  });
}

/** Starts a collector with one viewer (so it samples at the fast cadence). */
async function watching(sampleMs = 20) {
  const collector = makeCollector(sampleMs);
  const unsubscribe = collector.feed.subscribe(() => undefined);
  collector.start(PG.monitorUrl);
  await waitFor("collector up with settings", () => collector.info().status === "up" && collector.window.allTicks().length > 3);
  return {
    collector,
    async stop() {
      unsubscribe();
      await collector.stop();
    },
  };
}

describe("collector against PostgreSQL 18 (io_method = worker)", () => {
  let admin: pg.Client;
  beforeAll(async () => {
    admin = await connect(PG.superuserUrl);
  });
  afterAll(async () => {
    await admin.end();
  });

  it("records async reads in flight during a cold sequential scan of a table larger than shared_buffers", async () => {
    const { sharedBuffers, table } = await sizes(admin, PG.table);
    expect(table).toBeGreaterThan(2 * sharedBuffers);
    const w = await watching();
    try {
      const scanner = await connect(PG.superuserUrl, "scan-under-test");
      await scanner.query("SET max_parallel_workers_per_gather = 0");
      const { rows } = await scanner.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      const scanPid = rows[0].pid;
      let asyncTicks = 0;
      let busyWorkers = 0;
      // A loaded machine can hide a short burst from the samples: cold scans until both were
      // seen, bounded at 60 s (a scan takes about a second here).
      const deadline = Date.now() + 60_000;
      for (let scans = 0; (asyncTicks === 0 || busyWorkers === 0) && (scans < 3 || Date.now() < deadline); scans++) {
        await evictFromPageCache(admin, PG.dataDir, PG.table);
        const from = Date.now();
        await scanner.query(`SELECT count(*) FROM ${PG.table} WHERE payload LIKE '%zz%'`);
        await new Promise((r) => setTimeout(r, 100));
        const during = w.collector.window.allTicks().filter((t) => t.t >= from);
        asyncTicks += during.filter((t) => t.runs.some((r) => r.id.startsWith(`${scanPid}:`) && (r.inFlight ?? 0) > 0)).length;
        busyWorkers = Math.max(busyWorkers, ...during.map((t) => t.workers.busy));
      }
      await scanner.end();
      expect(asyncTicks).toBeGreaterThan(0);

      const ticks = w.collector.window.allTicks();
      const read = ticks.flatMap((t) => (t.aio ? [{ ...t, aio: t.aio }] : []));
      expect(Math.max(...read.map((t) => t.aio.inFlight))).toBeGreaterThan(0);
      expect(Math.max(...read.map((t) => t.aio.bytes))).toBeGreaterThan(0);
      // handles in flight are counted by state, and the states add up
      const busiest = read.reduce((a, b) => (b.aio.inFlight > a.aio.inFlight ? b : a));
      expect(Object.values(busiest.aio.byState).reduce((a, b) => a + b, 0)).toBe(busiest.aio.inFlight);

      // each tick says how many io workers io_workers asks for and how many it saw
      // (PostgreSQL may be restarting one at any moment: alive is what was seen), and
      // never more busy than it saw alive
      const ioWorkers = Number(w.collector.window.settings.io_workers.setting);
      expect(w.collector.window.settings.io_method.setting).toBe("worker");
      for (const t of ticks.filter((t) => t.workers.configured !== null)) {
        expect(t.workers.configured).toBe(ioWorkers);
        expect(t.workers.busy).toBeLessThanOrEqual(t.workers.alive);
      }
      expect(ticks.some((t) => t.workers.alive === ioWorkers)).toBe(true);
      // the io workers did the reads: at least one was seen busy
      expect(busyWorkers).toBeGreaterThan(0);

      // the scan is a run: verdict async, its relation named, progress seen
      const run = await waitFor("the scan's run", () =>
        w.collector.window.queries().find((q) => q.pid === scanPid && q.query.includes("LIKE '%zz%'") && q.aioSamples > 0),
      );
      expect(run.verdict).toBe("async");
      await waitFor("relation resolved", () =>
        w.collector.window
          .queries()
          .find((q) => q.id === run.id)
          ?.relations.some((r) => r.name === PG.table),
      );
      const resolved = w.collector.window.queries().find((q) => q.id === run.id)!;
      expect(resolved.progress).not.toBeNull();
      expect(resolved.progress!).toBeGreaterThan(0);
      expect(resolved.endedAt).not.toBeNull();
    } finally {
      await w.stop();
    }
  });

  it("records cold index point lookups as synchronous handles: a synchronous verdict, any async sample a named minority", async () => {
    const w = await watching();
    try {
      const looker = await connect(PG.superuserUrl, "lookups-under-test");
      await looker.query("SET enable_seqscan = off; SET enable_bitmapscan = off; SET max_parallel_workers_per_gather = 0");
      const { rows } = await looker.query<{ pid: number; max: string }>(
        `SELECT pg_backend_pid() AS pid, (SELECT max(id) FROM ${PG.table}) AS max`,
      );
      const { pid, max } = rows[0];
      for (let i = 0; i < 4; i++) {
        await evictFromPageCache(admin, PG.dataDir, PG.table);
        const ids = Array.from({ length: 2000 }, () => 1 + Math.floor(Math.random() * Number(max)));
        await looker.query(`SELECT sum(reading) FROM ${PG.table} WHERE id = ANY($1::bigint[])`, [ids]);
      }
      await looker.end();
      await new Promise((r) => setTimeout(r, 100));
      const runs = w.collector.window.queries().filter((q) => q.pid === pid && q.query.includes("ANY($1"));
      expect(runs.length).toBeGreaterThan(0);
      const samples = runs.reduce((n, r) => n + r.samples, 0);
      const syncSamples = runs.reduce((n, r) => n + r.syncSamples, 0);
      expect(samples).toBeGreaterThan(0);
      expect(syncSamples).toBeGreaterThan(0);
      // PostgreSQL 18 reads index lookups synchronously: most of their samples say so.
      expect(syncSamples).toBeGreaterThan(runs.reduce((n, r) => n + r.asyncSamples, 0));
      for (const run of runs.filter((r) => r.syncSamples > 0)) expectLookupVerdict(run);
      const ticks = w.collector.window.allTicks();
      const lookupTicks = ticks.filter((t) => t.runs.some((r) => r.id.startsWith(`${pid}:`)));
      expect(lookupTicks.some((t) => (t.aio?.sync ?? 0) > 0)).toBe(true);
    } finally {
      await w.stop();
    }
  });

  it("reads pg_stat_io deltas once a second and the io settings in human units", async () => {
    const w = await watching();
    try {
      await evictFromPageCache(admin, PG.dataDir, PG.table);
      await admin.query(`SELECT count(*) FROM ${PG.table}`);
      const sample = await waitFor("a pg_stat_io delta with reads", () => w.collector.window.allIo().find((s) => s.totals.reads > 0), 8000);
      expect(sample.totals.readBytes).toBeGreaterThan(0);
      expect(sample.intervalMs).toBeGreaterThanOrEqual(900);
      const s = w.collector.window.settings;
      expect(s.io_combine_limit.display).toBe("128 kB");
      expect(s.shared_buffers.display).toBe("32 MB");
      expect(s.io_method.enumvals).toContain("worker");
      expect(w.collector.info().serverVersionNum).toBeGreaterThanOrEqual(180000);
    } finally {
      await w.stop();
    }
  });

  it("runs read-only, and never shows its own session", async () => {
    const w = await watching();
    try {
      const { client, pid: own } = ownSession(w.collector);
      const { rows } = await admin.query<{ name: string }>("SELECT application_name AS name FROM pg_stat_activity WHERE pid = $1", [own]);
      expect(rows).toEqual([{ name: "inflight" }]);
      await new Promise((r) => setTimeout(r, 300));
      for (const t of w.collector.window.allTicks()) expect(t.runs.some((r) => r.id.startsWith(`${own}:`))).toBe(false);
      const settings = await admin.query<{ ro: string }>(
        `SELECT /* test support */ setting AS ro FROM pg_settings WHERE name = 'default_transaction_read_only'`,
      );
      expect(settings.rows[0].ro).toBe("off");
      // the collector's own session: a write through it fails
      await expect(client.query("CREATE TABLE inflight_should_not_exist (x int)")).rejects.toThrow(/read-only transaction/);
    } finally {
      await w.stop();
    }
  });
});
