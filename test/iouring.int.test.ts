// io_method = io_uring on a real PostgreSQL 18 (Debian's liburing build in a
// chroot, see test/support/iouring.ts): what the views show while a cold
// sequential scan reads through io_uring, and that a restart switches the
// method both ways. Where the machine cannot run it, the run fails with the
// reason (IOURING_TESTS=skip: left out, saying so).
import { existsSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, evictFromPageCache, sizes, waitFor } from "./support/pg";
import { ioUringAvailable, startIoUringPg, type IoUringPg } from "./support/iouring";

const io = await ioUringAvailable();
if (!io.ok) console.log(`[iouring] not run, as asked: ${io.why}`);

const TABLE = "iouring_scan";
/** ~200 MB at ~34 rows of this shape per 8 kB page: six times shared_buffers (32 MB). */
const ROWS = 880_000;
const SAMPLE_EVERY_MS = 5;
const MAX_SCANS = 4;
const IO_URING_WAITS = ["IO:AioIoUringSubmit", "IO:AioIoUringExecution"];

interface AioRow {
  pid: number;
  state: string;
  operation: string | null;
  length: number | null;
  /** null while a handle is HANDED_OUT, not yet defined. */
  f_sync: boolean | null;
}

interface Sample {
  wait: string | null;
  io_workers: number;
  aios: AioRow[];
}

/** One statement, so the scanning backend's wait event and pg_aios are read within a millisecond of each other. */
const SAMPLE_SQL = `
  SELECT (SELECT wait_event_type || ':' || wait_event FROM pg_stat_activity WHERE pid = $1) AS wait,
         (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'io worker') AS io_workers,
         coalesce((SELECT json_agg(json_build_object('pid', pid, 'state', state, 'operation', operation,
                                                     'length', length, 'f_sync', f_sync))
                   FROM pg_aios), '[]'::json) AS aios`;

function tally(values: Iterable<string | number | boolean | null>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}

interface ScanRun {
  samples: Sample[];
  pid: number;
  plan: Record<string, number>;
}

/**
 * What the samples of one scan held, for the log. Seen here: one handle at a
 * time, 15 blocks: a scan of a table over shared_buffers / 4 reads through a
 * 256 kB ring, which caps the read stream at that (16 handles of 16 blocks
 * without the ring, with shared_buffers at 1 GB).
 */
function describeRun({ samples, pid, plan }: ScanRun): string {
  const own = samples.map((s) => s.aios.filter((a) => a.pid === pid));
  const handles = own.flat();
  return [
    `${plan["Execution Time"].toFixed(0)} ms, ${plan["Shared Read Blocks"]} blocks read (${plan["Shared Hit Blocks"]} hit),` +
      ` read wait ${Number(plan["Shared I/O Read Time"] ?? 0).toFixed(0)} ms`,
    `${samples.length} samples, ${own.filter((rows) => rows.length > 0).length} with a handle, at most ${Math.max(0, ...own.map((rows) => rows.length))} at once`,
    `waits ${JSON.stringify(tally(samples.map((s) => s.wait ?? "CPU")))}`,
    `states ${JSON.stringify(tally(handles.map((a) => a.state)))}`,
    `lengths ${JSON.stringify(tally(handles.map((a) => a.length)))}`,
    `f_sync ${JSON.stringify(tally(handles.map((a) => a.f_sync)))}`,
    `other pids' handles ${samples.reduce((n, s) => n + s.aios.length, 0) - handles.length}`,
  ].join("; ");
}

describe.skipIf(!io.ok)("PostgreSQL 18 with io_method = io_uring", () => {
  let server: IoUringPg;

  async function sql<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
    const client = await connect(server.superuserUrl(), "iouring-test");
    try {
      return (await client.query<T>(text, params)).rows;
    } finally {
      await client.end();
    }
  }

  async function ioMethodNow(): Promise<{ ioMethod: string; ioWorkers: number }> {
    const [row] = await sql<{ io_method: string; io_workers: number }>(
      `SELECT current_setting('io_method') AS io_method,
              (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'io worker') AS io_workers`,
    );
    return { ioMethod: row.io_method, ioWorkers: row.io_workers };
  }

  /** Evicts the table from the OS page cache, scans it once, sampling the scanning backend every ~5 ms. */
  async function sampledColdScan(): Promise<ScanRun> {
    const admin = await connect(server.superuserUrl(), "iouring-sampler");
    const scanner = await connect(server.superuserUrl(), "iouring-scan");
    try {
      await evictFromPageCache(admin, server.dataDir, TABLE);
      await scanner.query("SET max_parallel_workers_per_gather = 0");
      const [{ pid }] = (await scanner.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows;
      let done = false;
      const scan = scanner
        .query<{ "QUERY PLAN": [{ Plan: Record<string, number>; "Execution Time": number }] }>(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT count(*) FROM ${TABLE}`,
        )
        .finally(() => (done = true));
      const samples: Sample[] = [];
      while (!done) {
        samples.push((await admin.query<Sample>(SAMPLE_SQL, [pid])).rows[0]);
        await sleep(SAMPLE_EVERY_MS);
      }
      const [explain] = (await scan).rows[0]["QUERY PLAN"];
      return { samples, pid, plan: { ...explain.Plan, "Execution Time": explain["Execution Time"] } };
    } finally {
      await Promise.all([admin.end(), scanner.end()]);
    }
  }

  beforeAll(async () => {
    server = await startIoUringPg();
    await sql(`CREATE TABLE ${TABLE} (id int, pad text) WITH (autovacuum_enabled = off)`);
    await sql(`INSERT INTO ${TABLE} SELECT g, repeat('x', 200) FROM generate_series(1, $1) g`, [ROWS]);
    // Hint bits and the visibility map now, so the scans below only read.
    await sql(`VACUUM (ANALYZE) ${TABLE}`);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("offers io_uring and runs with it, without io workers", async () => {
    const [setting] = await sql<{ enumvals: string[]; setting: string }>(
      "SELECT enumvals, setting FROM pg_settings WHERE name = 'io_method'",
    );
    expect(setting.enumvals).toContain("io_uring");
    expect(setting.setting).toBe("io_uring");
    expect((await ioMethodNow()).ioWorkers).toBe(0);
  });

  it("a cold sequential scan shows async pg_aios handles and io_uring wait events", async () => {
    const client = await connect(server.superuserUrl(), "iouring-sizes");
    const size = await sizes(client, TABLE).finally(() => client.end());
    expect(size.table).toBeGreaterThan(5 * size.sharedBuffers);
    const [{ file }] = await sql<{ file: string }>("SELECT pg_relation_filepath($1) AS file", [TABLE]);
    // evictFromPageCache skips files it cannot find: a chroot-side path would make every scan warm, silently.
    expect(existsSync(path.join(server.dataDir, file))).toBe(true);

    const waits = new Set<string>();
    let sawAsync = false;
    // Bounded: a scan on a fast disk can end between two samples of one kind.
    for (let scans = 1; scans <= MAX_SCANS && !(sawAsync && IO_URING_WAITS.some((w) => waits.has(w))); scans++) {
      const run = await sampledColdScan();
      for (const s of run.samples) if (s.wait) waits.add(s.wait);
      sawAsync ||= run.samples.some((s) => s.aios.some((a) => a.pid === run.pid && a.f_sync === false));
      console.log(`[iouring] cold scan ${scans}: ${describeRun(run)}`);
      // Only what shared_buffers already held may come without a read.
      expect(run.plan["Shared Read Blocks"]).toBeGreaterThan((size.table - size.sharedBuffers) / 8192);
      expect(run.samples.every((s) => s.io_workers === 0)).toBe(true);
    }
    console.log(`[iouring] wait events of the scanning backend: ${[...waits].sort().join(", ")}`);
    expect(sawAsync).toBe(true);
    expect([...waits].filter((w) => IO_URING_WAITS.includes(w))).not.toEqual([]);
  });

  it("restart('worker') brings io workers, restart('io_uring') takes them away again", async () => {
    await server.restart("worker");
    const worker = await waitFor("io workers after the restart", async () => {
      const now = await ioMethodNow();
      return now.ioWorkers > 0 && now;
    });
    expect(worker.ioMethod).toBe("worker");

    await server.restart("io_uring");
    const uring = await waitFor("no io workers after the restart", async () => {
      const now = await ioMethodNow();
      return now.ioWorkers === 0 && now;
    });
    expect(uring.ioMethod).toBe("io_uring");
  });
});
