// An 18 cluster upgraded to 19 with pg_upgrade while inflight watches it
// (both builds in the folder scripts/iouring-pg.mjs makes): the target comes
// back on 19, the upgrade is recorded as a restart with server_version and
// the io worker settings among its changes, and the page then speaks of the
// pool, never io_workers. Where the machine cannot run it, the run fails with
// the reason (IOURING_TESTS=skip: left out, saying so).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Collector } from "../lib/server/collector/collector";
import { pg19Available, startIoUringPg, type IoUringPg } from "./support/iouring";
import { connect, waitFor, TEST_COLLECTOR } from "./support/pg";

const io = await pg19Available();
const PROBE = "SELECT count(*) FROM upgrade_probe WHERE g < 10";
if (!io.ok) console.log(`[pg-upgrade] not run, as asked: ${io.why}`);

describe.skipIf(!io.ok)("pg_upgrade 18 -> 19 while inflight watches", () => {
  let server: IoUringPg;
  let collector: Collector;
  let unsubscribe: () => void;
  const w = () => collector.window;

  beforeAll(async () => {
    server = await startIoUringPg({ settings: { io_method: "worker", io_workers: "3" } });
    collector = new Collector({ id: "upgrade", name: "upgrade", demo: false, sampleMs: 50, idleSampleMs: 1000, windowMs: 10 * 60_000, ...TEST_COLLECTOR });
    unsubscribe = collector.feed.subscribe(() => undefined);
    collector.start(server.superuserUrl());
    await waitFor("up on 18 with its settings", () => collector.info().status === "up" && w().settings.io_workers, 20_000);
  }, 600_000);

  afterAll(async () => {
    unsubscribe?.();
    await collector?.stop();
    await server?.stop();
  });

  /** Runs the probe statement until pg_stat_statements (as the window reads it) has it: its query id. */
  async function probeQueryId(): Promise<string> {
    const client = await connect(server.superuserUrl(), "upgrade-probe");
    try {
      return await waitFor("the probe in pg_stat_statements", async () => {
        await client.query(PROBE);
        return w().statements.find((s) => s.query.includes("upgrade_probe") && s.query.includes("WHERE g <"))?.queryId;
      }, 30_000, 500);
    } finally {
      await client.end();
    }
  }

  it("comes back on 19; the upgrade is a restart that changed server_version, io_workers and the pool's settings; the same statement keeps its query id", async () => {
    expect(collector.info().serverVersionNum).toBeLessThan(190000);
    const admin = await connect(server.superuserUrl(), "upgrade-admin");
    await admin.query("CREATE TABLE upgrade_probe AS SELECT g FROM generate_series(1, 1000) g");
    await admin.end();
    const queryId = await probeQueryId();
    const before = w().restarts.length;
    await server.upgrade(19);
    const restart = await waitFor("the upgrade recorded as a restart", () => w().restarts[before], 60_000);
    expect(restart.changes.find((c) => c.name === "server_version")).toMatchObject({ before: expect.stringMatching(/^18\./), after: expect.stringMatching(/^19/) });
    expect(restart.changes).toContainEqual({ name: "io_workers", before: "3", after: null });
    expect(restart.changes).toContainEqual({ name: "io_max_workers", before: null, after: "8" });
    await waitFor("the collector on 19", () => (collector.info().serverVersionNum ?? 0) >= 190000 && collector.info().status === "up", 30_000);
    await waitFor("the io workers check on the pool", () => w().checks.find((c) => c.id === "io_workers" && /io_max_workers/.test(c.message)), 20_000);
    const applied = await waitFor("restart applied", () => w().findings.findings.find((f) => f.rule === "restart_applied"), 20_000);
    expect(applied.severity).toBe("info");
    // The first sample of the new server carries the pool's bound (the checks ran once more on it).
    await waitFor("a sample of the 19 server", () => w().lastTick()?.workers.max === 8, 20_000);
    const texts = [...w().checks.map((c) => c.message), ...w().findings.findings.filter((f) => f.rule !== "restart_applied").map((f) => f.text)].join("\n");
    expect(texts).not.toMatch(/NaN|undefined|io_workers\b/);
    // Seen live on 18.6 -> 19rc1: the same query id, so before/after can set the statement against itself.
    expect(await probeQueryId()).toBe(queryId);
  });
});
