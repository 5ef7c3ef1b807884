// A login role without pg_monitor on PostgreSQL 18 (the run's shared
// server: this only adds a role). What it may read, it gets; what it may
// not, the capabilities say; nothing fails in a loop.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withCredentials } from "../../../test/support/own-pg";
import { connect, testPg, waitFor, TEST_COLLECTOR } from "../../../test/support/pg";
import { Collector } from "./collector";
import { ownSession } from "../../../test/support/watch";

const PG = testPg();
const ROLE = "inflight_plain";
const PASSWORD = "Plain-Role-Pw-7";

function inDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

describe("a role without pg_monitor on PostgreSQL 18", () => {
  let admin: pg.Client;
  const su = inDatabase(PG.superuserUrl, "postgres");
  const plain = withCredentials(su, ROLE, PASSWORD);

  beforeAll(async () => {
    admin = await connect(su, "roles-admin");
    await admin.query(`DROP ROLE IF EXISTS ${ROLE}`);
    await admin.query(`CREATE ROLE ${ROLE} LOGIN PASSWORD '${PASSWORD}'`);
  });
  afterAll(async () => {
    await admin.query(`DROP ROLE IF EXISTS ${ROLE}`).catch(() => undefined);
    await admin.end();
  });

  it("says what is denied, still records its own activity, pg_stat_io and its own statements, and logs no error", async () => {
    const lines: string[] = [];
    const c = new Collector({
      id: "plain",
      name: "plain",
      demo: false,
      watchedSampleMs: 50,
      idleSampleMs: 1000,
      windowMs: 600_000,
      ...TEST_COLLECTOR,
      log: (l) => lines.push(l),
    });
    const unsubscribe = c.feed.subscribe(() => undefined);
    c.start(plain);
    const mine = await connect(plain, "plain-sleeper");
    const theirs = await connect(su, "superuser-sleeper");
    try {
      await waitFor("up", () => c.info().status === "up" && c.window.allTicks().length > 2, 10_000);
      expect(c.info().capabilities).toEqual({
        aios: true,
        aiosDenied: true,
        statIo: true,
        statStatements: expect.any(String),
        readAllStats: false,
        role: expect.any(String),
      });
      const session = ownSession(c).pid;

      const minePid = (await mine.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
      const theirPid = (await theirs.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
      const from = Date.now();
      await Promise.all([mine.query("SELECT pg_sleep(1.2)"), theirs.query("SELECT pg_sleep(1.2)")]);
      await new Promise((r) => setTimeout(r, 100));

      // Its own session's statement is a run with its wait event...
      const run = c.window.queries().find((q) => q.pid === minePid);
      expect(run?.query).toContain("pg_sleep");
      // ...another role's is hidden from it (no state, no query): not a run, not a wait.
      expect(c.window.queries().some((q) => q.pid === theirPid)).toBe(false);
      const during = c.window.allTicks().filter((t) => t.t > from + 200 && t.t < from + 1000);
      expect(during.length).toBeGreaterThan(5);
      for (const t of during) expect(t.waits["Timeout:PgSleep"]).toBe(1);

      // pg_stat_io is open to every role: deltas arrive.
      await waitFor("a pg_stat_io delta", () => c.window.allIo().length > 0, 5000);
      // pg_stat_statements shows its own statements only (others' have no queryid).
      const sleep = await waitFor(
        "its pg_sleep in the statements",
        () => c.window.statements.find((s) => s.query.includes("pg_sleep")),
        15_000,
      );
      expect(sleep.calls).toBe(1);
      // Settings are readable.
      expect(c.window.settings.io_method?.setting).toBe("worker");
      // The io workers are hidden from it: their check says so, it does not fail.
      const checks = Object.fromEntries(c.window.checks.map((k) => [k.id, k]));
      expect(checks.io_workers.status).toBe("unknown");
      expect(checks.io_workers.message).toContain("GRANT pg_monitor");
      expect(c.window.checks.filter((k) => k.status === "fail")).toEqual([]);

      // Nothing failed, nothing reconnected.
      expect(lines.filter((l) => !/ is up /.test(l))).toEqual([]);
      expect(c.window.outages).toEqual([]);
      // The same session throughout (other test files watch this server too: not counted by name).
      expect(ownSession(c).pid).toBe(session);
      const after = await admin.query<{ name: string }>("SELECT application_name AS name FROM pg_stat_activity WHERE pid = $1", [session]);
      expect(after.rows).toEqual([{ name: "inflight" }]);
      expect(c.info().status).toBe("up");
    } finally {
      unsubscribe();
      await c.stop();
      await mine.end();
      await theirs.end();
    }
  });
});
