// A server without asynchronous I/O: Debian's PostgreSQL 15. The collector
// decides from the catalog (no pg_aios, no pg_stat_io), records activity and
// wait events, and runs with no error.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pg15Available, startPg15, type Pg15 } from "../../../test/support/pg15";
import { connect, waitFor, TEST_COLLECTOR } from "../../../test/support/pg";
import { Collector } from "./collector";

describe("PostgreSQL 15 (no asynchronous I/O)", () => {
  let server: Pg15;
  let admin: pg.Client;

  beforeAll(async () => {
    if (!pg15Available()) throw new Error("PostgreSQL 15 binaries missing: apt-get install -y postgresql-15");
    server = await startPg15({ shared_preload_libraries: "pg_stat_statements", compute_query_id: "on", track_io_timing: "on" });
    admin = await connect(server.superuserUrl(), "pg15-admin");
    await admin.query("CREATE EXTENSION pg_stat_statements");
  });
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  it("records activity and wait events, with capabilities aios and statIo false, and no error", async () => {
    const lines: string[] = [];
    const c = new Collector({
      id: "pg15",
      name: "pg15",
      demo: false,
      watchedSampleMs: 50,
      idleSampleMs: 1000,
      windowMs: 600_000,
      ...TEST_COLLECTOR,
      log: (l) => lines.push(l),
    });
    const unsubscribe = c.feed.subscribe(() => undefined);
    c.start(server.superuserUrl());
    const worker = await connect(server.superuserUrl(), "pg15-worker");
    try {
      await waitFor("up", () => c.info().status === "up" && c.window.allTicks().length > 2, 10_000);
      const info = c.info();
      expect(info.serverVersionNum).toBeGreaterThanOrEqual(150000);
      expect(info.serverVersionNum).toBeLessThan(160000);
      expect(info.capabilities).toEqual({
        aios: false,
        aiosDenied: false,
        statIo: false,
        statStatements: "1.10",
        readAllStats: true,
        role: expect.any(String),
      });
      expect(info.ioMethod).toBeNull();

      const pid = (await worker.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
      const from = Date.now();
      await worker.query("SELECT pg_sleep(1)");
      await worker.query("SELECT count(*) FROM generate_series(1, 3000000)");
      await new Promise((r) => setTimeout(r, 100));

      const runs = c.window.queries().filter((q) => q.pid === pid);
      expect(runs.map((r) => r.query)).toEqual(
        expect.arrayContaining([expect.stringContaining("pg_sleep"), expect.stringContaining("generate_series")]),
      );
      const ticks = c.window.allTicks().filter((t) => t.t >= from);
      expect(ticks.some((t) => t.waits["Timeout:PgSleep"] === 1)).toBe(true);
      expect(ticks.some((t) => t.runs.some((r) => r.state === "cpu"))).toBe(true);
      // No pg_aios to read: the handles are unknown (null), not zero; no io workers.
      expect(ticks.every((t) => t.aio === null && t.workers.alive === 0)).toBe(true);
      expect(c.window.allIo().length).toBe(0);
      // pg_stat_statements 1.10 (blk_read_time, before the 17 rename) is read.
      await waitFor("pg_sleep in the statements", () => c.window.statements.some((s) => s.query.includes("pg_sleep")), 15_000);

      // Ran for seconds with no error and no reconnect.
      expect(lines.filter((l) => !/ is up /.test(l))).toEqual([]);
      expect(c.window.outages).toEqual([]);
      expect(c.window.checks.filter((k) => k.status === "fail")).toEqual([]);
      expect(c.info().status).toBe("up");
    } finally {
      unsubscribe();
      await c.stop();
      await worker.end();
    }
  });
});
