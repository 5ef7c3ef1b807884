// Issue 4: after a restart, did io_method and the other io settings take
// effect? Against a PostgreSQL 18 of this file's own (it ALTER SYSTEMs and
// restarts), driven through a Collector as the app drives it.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Check, Restart } from "../../schemas/settings";
import { alterSystem } from "../demo/admin";
import { startEmbedded, type EmbeddedServer } from "../demo/embedded";
import { connect, evictFromPageCache, waitFor, TEST_COLLECTOR } from "../../../test/support/pg";
import { Collector } from "./collector";

const TABLE = "public.restart_probe";
/** The collector reads settings every 5 s: a wait for a new value allows one round and some. */
const SETTINGS_ROUND_MS = 7_000;
/** Checks are re-run when the collector reconnects, well before the next 5 s round. */
const RIGHT_AFTER_MS = 2_000;

describe("io settings across restarts (own PostgreSQL 18)", () => {
  let root: string | null = null;
  let server: EmbeddedServer;
  let collector: Collector;
  let unsubscribe: () => void;

  const w = () => collector.window;
  const check = (id: string): Check | undefined => w().checks.find((c) => c.id === id);

  async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = await connect(server.superuserUrl("postgres"), "restarts-test-admin");
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  /** Restarts through `restart` and returns the restart the window recorded. */
  async function restartAndWait(restart: () => Promise<void>): Promise<Restart> {
    const count = w().restarts.length;
    await restart();
    return waitFor("the restart recorded", () => w().restarts[count], 15_000);
  }

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "inflight-restarts-"));
    // mkdtemp makes a 0700 folder; the postgres user must pass through it.
    chmodSync(root, 0o755);
    server = await startEmbedded({ dataDir: path.join(root, "pg"), log: () => undefined });
    await admin(async (c) => {
      // 48 MB, next to shared_buffers of 32 MB: a cold scan reads from the OS.
      await c.query(`CREATE TABLE ${TABLE} AS SELECT g AS id, repeat(md5(g::text), 6) AS payload FROM generate_series(1, 200000) AS g`);
      await c.query(`ANALYZE ${TABLE}`);
    });
    collector = new Collector({
      id: "own",
      name: "own",
      demo: true,
      watchedSampleMs: 50,
      idleSampleMs: 1000,
      windowMs: 10 * 60_000,
      ...TEST_COLLECTOR,
    });
    // One viewer: the collector samples at the fast cadence.
    unsubscribe = collector.feed.subscribe(() => undefined);
    collector.start(server.monitorUrl("postgres"));
    await waitFor("collector up with checks", () => collector.info().status === "up" && check("io_workers"), 10_000);
  });

  afterAll(async () => {
    unsubscribe?.();
    await collector?.stop();
    await server?.stop("fast");
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("warns that io_method waits for a restart after ALTER SYSTEM and a reload", async () => {
    expect(w().settings.io_method.setting).toBe("worker");
    expect(check("pending_restart")?.status).toBe("pass");
    await admin(async (c) => {
      await c.query("ALTER SYSTEM SET io_method = 'sync'");
      await c.query("SELECT pg_reload_conf()");
    });
    // In the state of the restart_pending finding, which it cites.
    const pending = await waitFor(
      "pending_restart acts",
      () => check("pending_restart")?.status === "act" && check("pending_restart"),
      SETTINGS_ROUND_MS,
    );
    expect(pending.message).toMatch(
      /^A setting waits for a restart \(see the finding above\)\. Waiting for a restart: io_method worker in force; the next restart brings sync/,
    );
    // The value in force is still the old one, and nothing else has changed.
    expect(w().settings.io_method).toMatchObject({ setting: "worker", pendingRestart: true });
    expect(w().restarts).toHaveLength(0);
  });

  it("records the restart with io_method worker -> sync, no io workers left, and the checks passing right after", async () => {
    const startBefore = w().serverStart!;
    const restart = await restartAndWait(() => server.restart());
    expect(restart.at).toBeGreaterThan(startBefore);
    expect(restart.changes).toContainEqual({ name: "io_method", before: "worker", after: "sync" });
    expect(w().settings.io_method).toMatchObject({ setting: "sync", pendingRestart: false });
    // The connection was lost across the restart: an outage, closed again.
    expect(w().outages.at(-1)).toMatchObject({ to: expect.any(Number) });

    // Every tick after the reconnect knows io_method = sync: no io workers.
    await waitFor(
      "ticks after the restart",
      () =>
        w()
          .allTicks()
          .filter((t) => t.t >= restart.seenAt).length >= 5,
    );
    for (const t of w()
      .allTicks()
      .filter((t) => t.t >= restart.seenAt))
      expect(t.workers).toMatchObject({ configured: 0, alive: 0 });

    // Checks re-run on the reconnect, not only at the next 5 s round.
    await waitFor(
      "checks pass after the restart",
      () => check("io_workers")?.status === "pass" && check("pending_restart")?.status === "pass",
      RIGHT_AFTER_MS,
    );
    expect(check("io_workers")!.message).toMatch(/io_method = sync: no io worker processes/);
    expect(check("async_observed")).toMatchObject({ status: "pass", message: expect.stringMatching(/reads are synchronous/) });
  });

  it("back to worker: three io workers, async reads not yet observed until a cold scan shows them", async () => {
    await admin((c) => c.query("ALTER SYSTEM SET io_method = 'worker'"));
    const restart = await restartAndWait(() => server.restart());
    expect(restart.changes).toContainEqual({ name: "io_method", before: "sync", after: "worker" });
    await waitFor("three io workers alive", () => w().lastTick()?.workers.alive === 3 && w().lastTick()!.workers.configured === 3);
    await waitFor("io_workers check passes", () => check("io_workers")?.status === "pass", RIGHT_AFTER_MS);
    // Async reads seen before the restart do not count for the new server.
    expect(check("async_observed")?.status).toBe("unknown");
    expect(check("async_observed")?.message).toMatch(/not yet observed/i);

    const scanner = await connect(server.superuserUrl("postgres"), "restarts-test-scan");
    try {
      await scanner.query("SET max_parallel_workers_per_gather = 0");
      const from = Date.now();
      for (
        let attempt = 0;
        attempt < 5 &&
        !w()
          .allTicks()
          .some((t) => t.t >= from && (t.aio?.inFlight ?? 0) > 0);
        attempt++
      ) {
        await evictFromPageCache(scanner, server.dataDir, TABLE);
        await scanner.query(`SELECT count(*) FROM ${TABLE} WHERE payload LIKE '%zz%'`);
      }
    } finally {
      await scanner.end();
    }
    await waitFor("async reads observed", () => check("async_observed")?.status === "pass", SETTINGS_ROUND_MS);
  });

  it("io_workers = 5 takes effect at a reload (no restart) in 18: five alive", async () => {
    const restarts = w().restarts.length;
    await admin(async (c) => {
      await c.query("ALTER SYSTEM SET io_workers = 5");
      await c.query("SELECT pg_reload_conf()");
    });
    await waitFor("five io workers alive", () => w().lastTick()?.workers.alive === 5, 5_000);
    await waitFor(
      "io_workers = 5 read and its check passing",
      () => w().settings.io_workers?.setting === "5" && check("io_workers")?.status === "pass",
      SETTINGS_ROUND_MS,
    );
    expect(check("io_workers")!.message).toMatch(/^5 io workers alive/);
    expect(w().settings.io_workers.pendingRestart).toBe(false);
    // Ticks count configured workers from the settings read before them.
    await waitFor("ticks with five configured", () => w().lastTick()?.workers.configured === 5);
    expect(w().restarts).toHaveLength(restarts);
  });

  it("warns that io_combine_limit 256kB is clamped to io_max_combine_limit 128kB", async () => {
    await admin(async (c) => {
      await c.query("ALTER SYSTEM SET io_combine_limit = '256kB'");
      await c.query("SELECT pg_reload_conf()");
    });
    // In the state of the combine_clamped finding.
    const warn = await waitFor(
      "io_combine_limit acts",
      () => check("io_combine_limit")?.status === "act" && check("io_combine_limit"),
      SETTINGS_ROUND_MS,
    );
    expect(warn.message).toContain("the effective value is 128 kB");
    expect(w().settings.io_combine_limit.display).toBe("256 kB");
    expect(w().settings.io_max_combine_limit.display).toBe("128 kB");
  });

  it("the demo restart path (admin.alterSystem + server.restart) gives the same result", async () => {
    const restart = await restartAndWait(async () => {
      await alterSystem(server, { io_method: "sync" });
      await server.restart();
    });
    expect(restart.changes).toContainEqual({ name: "io_method", before: "worker", after: "sync" });
    await waitFor(
      "checks pass after the demo restart",
      () => check("io_workers")?.status === "pass" && check("pending_restart")?.status === "pass",
      RIGHT_AFTER_MS,
    );
    await waitFor(
      "ticks after the restart",
      () =>
        w()
          .allTicks()
          .filter((t) => t.t >= restart.seenAt).length >= 3,
    );
    for (const t of w()
      .allTicks()
      .filter((t) => t.t >= restart.seenAt))
      expect(t.workers).toMatchObject({ configured: 0, alive: 0 });
  });

  it("records a restart also when the server stayed down for a while before it came back", async () => {
    const count = w().restarts.length;
    await server.stop("fast");
    await waitFor("collector down", () => collector.info().status === "down", 5_000);
    // Let a few reconnect attempts fail.
    await waitFor("several failed attempts", () => Date.now() - collector.info().statusSince > 1_500, 3_000);
    await server.start();
    const restart = await waitFor("the restart recorded", () => w().restarts[count], 15_000);
    expect(restart.changes).toEqual([]);
    expect(collector.info().status).toBe("up");
    await waitFor(
      "checks pass after coming back",
      () => check("io_workers")?.status === "pass" && check("pending_restart")?.status === "pass",
      RIGHT_AFTER_MS,
    );
  });
});
