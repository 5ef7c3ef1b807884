// An 18 cluster upgraded to 19 with pg_upgrade while inflight watches it
// (both builds in the folder scripts/iouring-pg.mjs makes), with a history
// on disk: the target comes back on 19, the upgrade is recorded (live and in
// the history) as a restart with server_version and the io worker settings
// among its changes, before/after compares the same statement across it (on
// 18 before, on 19 after), and the page then speaks of the pool, never
// io_workers. Where the machine cannot run it, the run fails with the reason
// (IOURING_TESTS=skip: left out, saying so).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Collector } from "../lib/server/collector/collector";
import { comparePayload } from "../lib/server/history/compare";
import { HistoryStore } from "../lib/server/history/store";
import { pg19Available, startIoUringPg, type IoUringPg } from "./support/iouring";
import { connect, waitFor, TEST_COLLECTOR } from "./support/pg";

const io = await pg19Available();
const HOUR = 3_600_000;
const NAME = "upgrade";
const PROBE = "SELECT count(*) FROM upgrade_probe WHERE g < 10";
if (!io.ok) console.log(`[pg-upgrade] not run, as asked: ${io.why}`);

describe.skipIf(!io.ok)("pg_upgrade 18 -> 19 while inflight watches", () => {
  let dir: string;
  let store: HistoryStore;
  let server: IoUringPg;
  let collector: Collector;
  let unsubscribe: () => void;
  const lines: string[] = [];
  const w = () => collector.window;
  const compare = () =>
    comparePayload(store, { target: NAME, history: store.historyOf(NAME), beforeMs: HOUR, afterMs: HOUR, now: Date.now(), redact: false });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-pg-upgrade-"));
    store = HistoryStore.open({
      file: path.join(dir, "history.db"),
      retentionMs: 7 * 24 * HOUR,
      maxBytes: 64 * 1024 * 1024,
      log: (l) => lines.push(l),
    });
    server = await startIoUringPg({ settings: { io_method: "worker", io_workers: "3" } });
    collector = new Collector({
      id: NAME,
      name: NAME,
      demo: false,
      watchedSampleMs: 50,
      idleSampleMs: 1000,
      windowMs: 10 * 60_000,
      ...TEST_COLLECTOR,
      history: store.forTarget(NAME),
    });
    unsubscribe = collector.feed.subscribe(() => undefined);
    collector.start(server.superuserUrl());
    await waitFor("up on 18 with its settings", () => collector.info().status === "up" && w().settings.io_workers, 20_000);
    await waitFor("its history identified", () => store.historyOf(NAME)?.includes("#"), 10_000);
  }, 600_000);

  afterAll(async () => {
    unsubscribe?.();
    await collector?.stop();
    await server?.stop();
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the probe statement until pg_stat_statements (as the window reads it) has it: its query id. */
  async function probeQueryId(): Promise<string> {
    const client = await connect(server.superuserUrl(), "upgrade-probe");
    try {
      return await waitFor(
        "the probe in pg_stat_statements",
        async () => {
          await client.query(PROBE);
          return w().statements.find((s) => s.query.includes("upgrade_probe") && s.query.includes("WHERE g <"))?.queryId;
        },
        30_000,
        500,
      );
    } finally {
      await client.end();
    }
  }

  /** Runs the probe until the history's comparison around the last restart has it on both sides. */
  async function comparedAcross(queryId: string) {
    const client = await connect(server.superuserUrl(), "upgrade-probe");
    try {
      return await waitFor(
        "the probe compared across the upgrade",
        async () => {
          await client.query(PROBE);
          const c = compare();
          const row = c.rows.find((r) => r.queryId === queryId);
          return row && row.before.calls > 0 && row.after.calls > 0 ? { c, row } : null;
        },
        30_000,
        500,
      );
    } finally {
      await client.end();
    }
  }

  it("comes back on 19; the upgrade is a restart that changed server_version, io_workers and the pool's settings; before/after compares the same statement across it", async () => {
    expect(collector.info().serverVersionNum).toBeLessThan(190000);
    const history = store.historyOf(NAME)!;
    const admin = await connect(server.superuserUrl(), "upgrade-admin");
    await admin.query("CREATE TABLE upgrade_probe AS SELECT g FROM generate_series(1, 1000) g");
    await admin.end();
    const queryId = await probeQueryId();
    const before = w().restarts.length;
    await server.upgrade(19);
    const restart = await waitFor("the upgrade recorded as a restart", () => w().restarts[before], 60_000);
    expect(restart.changes.find((c) => c.name === "server_version")).toMatchObject({
      before: expect.stringMatching(/^18\./),
      after: expect.stringMatching(/^19/),
    });
    expect(restart.changes).toContainEqual({ name: "io_workers", before: "3", after: null });
    expect(restart.changes).toContainEqual({ name: "io_max_workers", before: null, after: "8" });
    await waitFor(
      "the collector on 19",
      () => (collector.info().serverVersionNum ?? 0) >= 190000 && collector.info().status === "up",
      30_000,
    );
    await waitFor(
      "the io workers check on the pool",
      () => w().checks.find((c) => c.id === "io_workers" && /io_max_workers/.test(c.message)),
      20_000,
    );
    const applied = await waitFor("restart applied", () => w().findings.findings.find((f) => f.rule === "restart_applied"), 20_000);
    expect(applied.severity).toBe("info");
    // The server-start finding says the major moved and describes 19's pool by the settings 19 has.
    expect(applied.text).toMatch(
      /that restart changed PostgreSQL 18\.\d+ -> 19\S* \(19 sizes its io workers itself: io_min_workers 2, io_max_workers 8, /,
    );
    // The first sample of the new server carries the pool's bound (the checks ran once more on it).
    await waitFor("a sample of the 19 server", () => w().lastTick()?.workers.max === 8, 20_000);
    const texts = [...w().checks.map((c) => c.message), ...w().findings.findings.map((f) => f.text)].join("\n");
    expect(texts).not.toMatch(/NaN|undefined|io_workers\b/);

    // The history keeps the upgraded server as the same one: its restart has server_version among its changes.
    const { c, row } = await comparedAcross(queryId);
    expect(store.historyOf(NAME)).toBe(history);
    expect(c.history).toMatchObject({ id: history, identifiedBy: "system_identifier" });
    expect(c.restart?.at).toBe(restart.at);
    expect(c.changes).toContainEqual({
      name: "server_version",
      before: expect.stringMatching(/^18\./),
      after: expect.stringMatching(/^19/),
    });
    const kept = store.restarts(history).at(-1)!;
    expect(kept.at).toBe(restart.at);
    expect(kept.changes.filter((x) => x.name === "server_version")).toEqual([
      { name: "server_version", before: expect.stringMatching(/^18\./), after: expect.stringMatching(/^19/) },
    ]);
    // Seen live on 18.6 -> 19rc1: the same query id, so the comparison sets the statement against itself.
    expect(row.query).toContain("upgrade_probe");
    expect(c.before!.to).toBeLessThanOrEqual(restart.seenAt);
    expect(c.after!.from).toBeGreaterThanOrEqual(restart.seenAt);
    expect(lines).toEqual([]);
  });
});
