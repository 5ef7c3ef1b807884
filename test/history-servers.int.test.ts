// Issue 19: the history knows its server, and its before/after leads with
// what matters. Against real PostgreSQL 18 servers of this file's own:
// two servers on one host, watched one after the other under the same
// display name (named after the host), keep two histories; where
// pg_control_system() is revoked, the address alone tells them apart; an
// upgrade (15 -> 18 on the same port) keeps its history; a short side
// between two restarts counts all its calls at the collector's shipped
// pg_stat_statements cadence (10 s: the calls after its last read before the
// restart too), and the slow scan leads the comparison while SET,
// BEGIN/COMMIT and monitoring polls are folded at the bottom.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alterSystem } from "../lib/server/demo/admin";
import { Collector } from "../lib/server/collector/collector";
import { DEFAULT_CADENCES, type Cadences } from "../lib/server/collector/steps/step";
import { comparePayload } from "../lib/server/history/compare";
import { HistoryStore } from "../lib/server/history/store";
import { startOwnPg, type OwnPg } from "./support/own-pg";
import { pg15Available, startPg15 } from "./support/pg15";
import { CompareResponse } from "../lib/schemas/compare";
import { connect, waitFor, TEST_COLLECTOR } from "./support/pg";
import { startServer } from "./support/server";

const HOUR = 3_600_000;
/** Both servers are named after their host, as a DATABASE_URL target is. */
const NAME = "127.0.0.1";
const SCAN = "SELECT count(*) FROM hist_big WHERE pad LIKE '%zz%'";

describe("histories kept by server (own PostgreSQL 18 servers)", () => {
  let dir: string;
  const servers: OwnPg[] = [];
  const lines: string[] = [];
  const openStore = (name: string) =>
    HistoryStore.open({ file: path.join(dir, name), retentionMs: 7 * 24 * HOUR, maxBytes: 64 * 1024 * 1024, log: (l) => lines.push(l) });
  /** A collector named after the host; `cadences` the shipped ones where the test is about them. */
  function watch(store: HistoryStore, own: OwnPg, cadences: Partial<Cadences> = TEST_COLLECTOR.cadences) {
    const c = new Collector({
      id: NAME,
      name: NAME,
      demo: false,
      watchedSampleMs: 200,
      idleSampleMs: 1000,
      windowMs: 10 * 60_000,
      ...TEST_COLLECTOR,
      cadences,
      history: store.forTarget(NAME),
    });
    c.start(own.server.monitorUrl("postgres"));
    return c;
  }
  const statementsReadAfter = (c: Collector, t: number) =>
    waitFor("a read of pg_stat_statements", () => (c.info().aspects.find((a) => a.aspect === "statements")?.lastOkAt ?? 0) > t, 25_000);
  async function restartInto(own: OwnPg, settings: Parameters<typeof alterSystem>[1]) {
    await alterSystem(own.server, settings);
    await own.server.restart();
  }
  const compareOf = (store: HistoryStore, history: string | null, at?: number) =>
    comparePayload(store, { target: NAME, history, at, beforeMs: HOUR, afterMs: HOUR, now: Date.now(), redact: false });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-history-servers-"));
    servers.push(...(await Promise.all([startOwnPg(), startOwnPg()])));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives two servers on one host, watched one after the other under one name, a history each: each comparison shows only its own restart", async () => {
    const [a, b] = servers;
    const store = openStore("two.db");
    try {
      const first = watch(store, a);
      try {
        await waitFor("up on the first server", () => first.info().status === "up", 15_000);
        await restartInto(a, { io_method: "sync" });
        await waitFor("its restart kept", () => store.restarts(store.historyOf(NAME)!).length === 1, 20_000);
      } finally {
        await first.stop();
      }
      const historyA = store.historyOf(NAME)!;
      expect(historyA).toMatch(new RegExp(`^127\\.0\\.0\\.1:${a.server.port}/postgres#\\d+$`));

      const second = watch(store, b);
      try {
        await waitFor("up on the second server", () => second.info().status === "up", 15_000);
        const historyB = store.historyOf(NAME)!;
        expect(historyB).toMatch(new RegExp(`^127\\.0\\.0\\.1:${b.server.port}/postgres#\\d+$`));
        // Not restarted while watched: nothing of the first server's is its own.
        expect(compareOf(store, historyB)).toMatchObject({ restart: null, history: { id: historyB, identifiedBy: "system_identifier" } });
        await restartInto(b, { io_workers: 5 });
        await waitFor("its restart kept", () => store.restarts(historyB).length === 1, 20_000);
        expect(compareOf(store, store.historyOf(NAME)).changes).toEqual([{ name: "io_workers", before: "3", after: "5" }]);
      } finally {
        await second.stop();
      }
      expect(compareOf(store, historyA).changes).toEqual([{ name: "io_method", before: "worker", after: "sync" }]);
      expect(store.restarts(historyA)).toHaveLength(1);
      expect(lines).toEqual([]);
    } finally {
      store.close();
    }
  });

  it("through the real server: DATABASE_URL targets named after their host, one server then the other on one file, each page's comparison its own", async () => {
    const [a, b] = servers;
    const file = path.join(dir, "real.db");
    const compareVia = async (url: string) => CompareResponse.parse(await (await fetch(`${url}/api/targets/${NAME}/compare`)).json());
    for (const [own, change] of [
      [a, { io_workers: 2 }],
      [b, { io_workers: 4 }],
    ] as const) {
      const app = await startServer({ DATABASE_URL: own.server.monitorUrl("postgres"), INFLIGHT_HISTORY_FILE: file });
      try {
        await waitFor(
          "connected",
          async () => (await compareVia(app.url)).history?.id.startsWith(`127.0.0.1:${own.server.port}/postgres#`),
          20_000,
        );
        // The other server's restart (the first one's, for the second) is never this page's.
        expect((await compareVia(app.url)).restart).toBeNull();
        await restartInto(own, change);
        const c = await waitFor(
          "its restart compared",
          async () => ((await compareVia(app.url)).restart ? compareVia(app.url) : null),
          30_000,
        );
        expect(c.changes).toEqual([expect.objectContaining({ name: "io_workers", after: String(change.io_workers) })]);
      } finally {
        await app.stop();
      }
    }
  });

  it("keeps an upgrade's history: the same address, a new identifier and a newer major (15 -> 18) is a restart with server_version among its changes", async () => {
    if (!pg15Available()) throw new Error("PostgreSQL 15 binaries missing: apt-get install -y postgresql-15");
    const store = openStore("upgrade.db");
    const old = await startPg15();
    let oldRunning = true;
    let upgraded: OwnPg | null = null;
    try {
      const first = new Collector({
        id: NAME,
        name: NAME,
        demo: false,
        watchedSampleMs: 200,
        idleSampleMs: 1000,
        windowMs: 60_000,
        ...TEST_COLLECTOR,
        history: store.forTarget(NAME),
      });
      first.start(old.superuserUrl());
      try {
        await waitFor("up on 15", () => first.info().status === "up", 15_000);
        await waitFor("identified", () => store.historyOf(NAME)?.includes("#"), 10_000);
      } finally {
        await first.stop();
      }
      const history = store.historyOf(NAME)!;
      await old.stop();
      oldRunning = false;
      // pg_upgrade's new cluster: a new system identifier, on the old one's port.
      upgraded = await startOwnPg(undefined, old.port);
      const second = watch(store, upgraded);
      try {
        const restart = await waitFor("the upgrade recorded as a restart", () => store.restarts(history)[0], 15_000);
        expect(store.historyOf(NAME)).toBe(history);
        expect(restart.changes[0]).toMatchObject({
          name: "server_version",
          before: expect.stringMatching(/^15\./),
          after: expect.stringMatching(/^18\./),
        });
        expect(compareOf(store, history).changes).toContainEqual(expect.objectContaining({ name: "server_version" }));
      } finally {
        await second.stop();
      }
    } finally {
      if (oldRunning) await old.stop();
      await upgraded?.dispose();
      store.close();
    }
  });

  it("goes by the address alone where pg_control_system() is revoked from the role, and says so once", async () => {
    const own = servers[1];
    const admin = await connect(own.server.superuserUrl("postgres"), "history-servers-test");
    await admin.query("REVOKE EXECUTE ON FUNCTION pg_control_system() FROM PUBLIC");
    const store = openStore("denied.db");
    const collector = watch(store, own);
    try {
      await waitFor("up", () => collector.info().status === "up", 15_000);
      await waitFor("identified", () => store.server(`127.0.0.1:${own.server.port}/postgres`));
      expect(store.historyOf(NAME)).toBe(`127.0.0.1:${own.server.port}/postgres`);
      expect(store.server(store.historyOf(NAME)!)).toMatchObject({ identified_by: "address", system_id: null });
      expect(lines.filter((l) => l.includes("told apart by its address only"))).toEqual([
        `history: the server at 127.0.0.1:${own.server.port}/postgres is told apart by its address only (this role may not run pg_control_system())`,
      ]);
    } finally {
      await collector.stop();
      store.close();
      await admin.query("GRANT EXECUTE ON FUNCTION pg_control_system() TO PUBLIC");
      await admin.end();
    }
  });

  it("counts every call of a short side between two restarts, leads with the slow scan and folds housekeeping and polls", async () => {
    const own = servers[0];
    let admin: pg.Client = await connect(own.server.superuserUrl("postgres"), "history-servers-test");
    await admin.query(
      "CREATE TABLE hist_big AS SELECT g AS id, g % 1000 AS v, repeat('x', 200) AS pad FROM generate_series(1, 200000) AS g",
    );
    await admin.query("CREATE INDEX ON hist_big (id)");
    await admin.end();
    const store = openStore("sides.db");
    // The shipped cadence: pg_stat_statements every 10 s, so the side's last calls come after the last read before the restart.
    const collector = watch(store, own, { ...TEST_COLLECTOR.cadences, statStatementsMs: DEFAULT_CADENCES.statStatementsMs });
    async function workload(client: pg.Client) {
      for (let i = 0; i < 40; i++) await client.query(`SET application_name = 'side-${i % 3}'`);
      for (let i = 0; i < 20; i++) {
        await client.query("BEGIN");
        await client.query("COMMIT");
      }
      // A monitoring poll, with time of its own: still folded.
      for (let i = 0; i < 5; i++) await client.query("SELECT pg_sleep(0.1), count(*) FROM pg_stat_activity");
      for (let i = 0; i < 50; i++) await client.query("SELECT v FROM hist_big WHERE id = $1", [i * 97 + 1]);
      for (let i = 0; i < 6; i++) await client.query(SCAN);
    }
    try {
      await waitFor("up", () => collector.info().status === "up", 15_000);
      await restartInto(own, { io_method: "sync" });
      const first = await waitFor("the first restart kept", () => store.restarts(store.historyOf(NAME)!)[0], 20_000);
      await statementsReadAfter(collector, first.seenAt);
      admin = await connect(own.server.superuserUrl("postgres"), "history-servers-test");
      await workload(admin);
      await admin.end();
      // Right away: the side's last calls are after the collector's last read.
      await restartInto(own, { io_method: "worker" });
      const second = await waitFor("the second restart kept", () => store.restarts(store.historyOf(NAME)!)[1], 20_000);
      await statementsReadAfter(collector, second.seenAt);
      admin = await connect(own.server.superuserUrl("postgres"), "history-servers-test");
      await workload(admin);
      await admin.end();
      const scanRow = (c: ReturnType<typeof compareOf>) => c.rows.find((r) => r.query.includes("hist_big WHERE pad"));
      const c = await waitFor(
        "the after side's scans kept",
        () => {
          const got = compareOf(store, store.historyOf(NAME), Math.round(second.at));
          return (scanRow(got)?.after.calls ?? 0) >= 6 && got;
        },
        30_000,
      );
      expect(c.changes).toContainEqual({ name: "io_method", before: "sync", after: "worker" });
      // The side is the server between the two restarts: seconds, not minutes, and every call of it counted.
      expect(c.before!.to - c.before!.from).toBeLessThan(60_000);
      expect(scanRow(c)).toMatchObject({ before: { calls: 6 }, after: { calls: 6 }, housekeeping: false });
      expect(c.rows.find((r) => r.query.includes("WHERE id ="))).toMatchObject({
        before: { calls: 50 },
        after: { calls: 50 },
        housekeeping: false,
      });
      // The slow scan leads; SET, BEGIN, COMMIT and the poll come after every statement of the workload, flagged.
      expect(c.rows[0].query).toContain("hist_big WHERE pad");
      const folded = c.rows.filter((r) => /^\s*(SET|BEGIN|COMMIT)\b/i.test(r.query) || r.query.includes("pg_stat_activity"));
      expect(folded.length).toBeGreaterThanOrEqual(4);
      expect(folded.every((r) => r.housekeeping)).toBe(true);
      const firstFolded = c.rows.findIndex((r) => r.housekeeping);
      expect(c.rows.slice(firstFolded).every((r) => r.housekeeping)).toBe(true);
      // Whatever its time, the poll is below the scan.
      const poll = c.rows.find((r) => r.query.includes("pg_stat_activity"))!;
      expect(poll.stakeMs).toBeGreaterThan(0);
      expect(c.rows.indexOf(poll)).toBeGreaterThan(c.rows.indexOf(scanRow(c)!));
      // What the findings may quote of it: the scan's mean under each io_method, here.
      const measure = await waitFor(
        "the scan's measures",
        () => store.forTarget(NAME).measures(Date.now()).get(scanRow(c)!.queryId),
        15_000,
      );
      expect(measure).toMatchObject({
        at: second.at,
        before: { ioMethod: "sync", calls: 6 },
        after: { ioMethod: "worker", calls: 6 },
      });
    } finally {
      await collector.stop();
      store.close();
    }
  });
});
