// Issue 41 on PostgreSQL 19 (Debian experimental's, see test/support/iouring.ts):
// `npm run lab` compares io_max_workers by reload. 19 sizes its io worker
// pool itself; what it promises is that the pool never runs more workers
// than io_max_workers: each run's io worker rows (counted while its four
// sessions ran) stay within the value, SHOW in every session says it, the
// server is not restarted, 8 (the default) is back at the end, and the
// result is kept in the history. io_workers, gone in 19, is refused naming
// --lever. Where the machine cannot run 19, the run fails with the reason
// (IOURING_TESTS=skip: left out, saying so).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LabExport } from "../lib/schemas/lab";
import { labResultsIn } from "./support/demo-lab";
import { pg19Available, startPg19, type IoUringPg } from "./support/iouring";
import { startLab } from "./support/lab";
import { connect } from "./support/pg";

const io = await pg19Available();
if (!io.ok) console.log(`[pg19] not run, as asked: ${io.why}`);

const TABLE = "public.pool_probe";
const DROP = 'for f in {files}; do dd if="$f" iflag=nocache count=0 status=none; done';

describe.skipIf(!io.ok)("npm run lab --lever io_max_workers (Debian's PostgreSQL 19, by reload)", () => {
  let server: IoUringPg;
  let dir: string;

  async function state(): Promise<{ started: string; max: string; workers: number }> {
    const c = await connect(server.superuserUrl(), "pg19-lab-check");
    try {
      const { rows } = await c.query(
        "SELECT pg_postmaster_start_time()::text AS started, current_setting('io_max_workers') AS max, (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'io worker') AS workers",
      );
      return rows[0];
    } finally {
      await c.end();
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-lab-pg19-"));
    server = await startPg19();
    const admin = await connect(server.superuserUrl(), "pg19-admin");
    try {
      // ~90 MB, unlogged (no WAL to write); pg_buffercache: each round starts with PostgreSQL's buffers empty.
      await admin.query(
        `CREATE UNLOGGED TABLE ${TABLE} AS SELECT g AS id, repeat(md5(g::text), 6) AS payload FROM generate_series(1, 400000) AS g`,
      );
      await admin.query(`VACUUM ANALYZE ${TABLE}`);
      await admin.query("CREATE EXTENSION pg_buffercache");
    } finally {
      await admin.end();
    }
  }, 600_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("io_max_workers 1 vs 4, 4 sessions, 2 rounds: never more workers than the value, SHOW says it, no restart, 8 back, kept", async () => {
    const before = await state();
    expect(before.max).toBe("8");
    const history = path.join(dir, "history.db");
    const lab = startLab(
      [
        "--url",
        server.superuserUrl(),
        "--sql",
        `SELECT count(*) FROM ${TABLE}`,
        "--lever",
        "io_max_workers",
        "--values",
        "1,4",
        "--rounds",
        "2",
        "--data-dir",
        server.dataDir,
        "--drop-cache",
        DROP,
        "--json",
        `${dir}/lab.json`,
      ],
      { INFLIGHT_HISTORY_FILE: history, INFLIGHT_HISTORY: "7d" },
    );
    expect(await lab.exited, lab.stderr()).toBe(0);
    expect(lab.stdout()).toMatch(
      /^cold: set by ALTER SYSTEM and a reload before every run \(no restart\), PostgreSQL's buffers emptied with pg_buffercache_evict_all\(\)/m,
    );
    expect(lab.stdout()).toMatch(/^io_max_workers\s+runs\s+median/m);
    const report = LabExport.parse(JSON.parse(readFileSync(`${dir}/lab.json`, "utf8")));
    expect(report.request).toMatchObject({ lever: "io_max_workers", concurrency: 4 });
    expect(report.runs.map((r) => `${r.round}:${r.value}`)).toEqual(["1:1", "1:4", "2:4", "2:1"]);
    for (const r of report.runs) {
      expect(r.shown).toBe(r.value);
      expect(r.workers?.max).toBeLessThanOrEqual(Number(r.value));
      expect(r.workers?.min).toBeGreaterThanOrEqual(1);
      // 19's EXPLAIN (IO): the scan's read stream, from the median session.
      expect(r.io?.node).toMatch(/Seq Scan/);
    }
    const after = await state();
    expect(after.started).toBe(before.started);
    expect(after.max).toBe("8");
    expect(labResultsIn(history).map((k) => k.result)).toMatchObject([
      { lever: "io_max_workers", concurrency: 4, rounds: 2, ioMethod: "worker", serverVersion: expect.stringMatching(/^19/) },
    ]);
  }, 300_000);

  it("io_workers, which 19 does not have: one line naming --lever, exit 2", async () => {
    const lab = startLab([
      "--url",
      server.superuserUrl(),
      "--lever",
      "io_workers",
      "--values",
      "1,3",
      "--sql",
      `SELECT count(*) FROM ${TABLE}`,
    ]);
    expect(await lab.exited).toBe(2);
    expect(lab.stderr().trim()).toBe(
      "lab: --lever: io_workers does not exist on PostgreSQL 19 (19 sizes its io worker pool itself: compare io_min_workers or io_max_workers)",
    );
  });
});
