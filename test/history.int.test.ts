// Issue 13: the history on disk against a real PostgreSQL 18 of this file's
// own. A workload before and after a restart worker -> sync (and back)
// gives a comparison with both sides and the setting that changed; the
// history survives inflight restarting (a second Collector, then the real
// built server, on the same file), and sees a restart made while no
// inflight ran; a corrupt file is one line and the dashboard runs live.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alterSystem } from "../lib/server/demo/admin";
import { Collector } from "../lib/server/collector/collector";
import { comparePayload } from "../lib/server/history/compare";
import { HistoryStore } from "../lib/server/history/store";
import { FleetResponse, TargetsResponse } from "../lib/schemas/api";
import { CompareResponse } from "../lib/schemas/compare";
import { startOwnPg, type OwnPg } from "./support/own-pg";
import { connect, waitFor, TEST_COLLECTOR } from "./support/pg";
import { startServer } from "./support/server";

const HOUR = 3_600_000;
const PROBE = "SELECT count(*) FROM hist_probe WHERE v % 7 = 3";

describe("the history on disk (own PostgreSQL 18)", () => {
  let own: OwnPg;
  let dir: string;
  let file: string;
  let admin: pg.Client;
  const lines: string[] = [];
  const restarts: { at: number; seenAt: number }[] = [];

  const openStore = () => HistoryStore.open({ file, retentionMs: 7 * 24 * HOUR, maxBytes: 64 * 1024 * 1024, log: (l) => lines.push(l) });
  const startCollector = (store: HistoryStore) => {
    const c = new Collector({
      id: "own",
      name: "own",
      demo: false,
      watchedSampleMs: 200,
      idleSampleMs: 1000,
      windowMs: 10 * 60_000,
      ...TEST_COLLECTOR,
      history: store.forTarget("own"),
    });
    c.start(own.server.monitorUrl("postgres"));
    return c;
  };
  /** The history of the server the collector "own" is connected to (its address and system identifier). */
  const h = (store: HistoryStore) => store.historyOf("own") ?? "none yet";
  const probeCalls = (store: HistoryStore, epochFrom?: number) => {
    const sums = store.sideSums(h(store), { from: 0, to: Date.now() + HOUR, epochFrom });
    const id = [...sums.keys()].find((k) => store.texts(h(store), [k]).get(k)?.includes("hist_probe"));
    return id ? sums.get(id)!.calls : 0;
  };
  async function work(n: number) {
    for (let i = 0; i < n; i++) await admin.query(PROBE);
  }
  /** The statements step's first read of a session is its baseline: what runs before it is not counted. */
  const baselineAfter = (collector: Collector, t: number) =>
    waitFor(
      "a read of pg_stat_statements in the new session",
      () => (collector.info().aspects.find((a) => a.aspect === "statements")?.lastOkAt ?? 0) > t,
      10_000,
    );
  async function restartInto(settings: Parameters<typeof alterSystem>[1]) {
    await admin.end();
    await alterSystem(own.server, settings);
    await own.server.restart();
    admin = await connect(own.server.superuserUrl("postgres"), "history-test");
  }
  const compare = (store: HistoryStore, at?: number) =>
    comparePayload(store, {
      target: "own",
      history: store.historyOf("own"),
      at,
      beforeMs: HOUR,
      afterMs: HOUR,
      now: Date.now(),
      redact: false,
    });
  const probeRow = (c: ReturnType<typeof compare>) => c.rows.find((r) => r.query.includes("hist_probe"));

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-history-"));
    file = path.join(dir, "history.db");
    own = await startOwnPg();
    admin = await connect(own.server.superuserUrl("postgres"), "history-test");
    await admin.query("CREATE TABLE hist_probe AS SELECT g AS v FROM generate_series(1, 20000) AS g");
  });
  afterAll(async () => {
    await admin?.end().catch(() => undefined);
    await own?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("compares a workload before and after a restart worker -> sync, and back, from the history", async () => {
    const store = openStore();
    const collector = startCollector(store);
    try {
      await waitFor("up", () => collector.info().status === "up", 15_000);
      await baselineAfter(collector, 0);
      await work(8);
      await waitFor("8 calls kept", () => probeCalls(store) >= 8, 15_000);

      await restartInto({ io_method: "sync" });
      restarts.push(await waitFor("the restart kept", () => store.restarts(h(store))[0], 15_000));
      await baselineAfter(collector, restarts[0].seenAt);
      await work(8);
      await waitFor("8 calls after it", () => probeCalls(store, restarts[0].at) >= 8, 15_000);

      const first = compare(store);
      expect(first.at).toBe(restarts[0].at);
      expect(first.changes).toContainEqual({ name: "io_method", before: "worker", after: "sync" });
      expect(probeRow(first)).toMatchObject({ before: { calls: 8 }, after: { calls: 8 }, verdict: { kind: expect.any(String) } });
      expect(probeRow(first)!.verdict.text).toMatch(
        /^(faster|slower) by \d+% \(8 vs 8 calls; outside the spread\)$|^no measurable difference/,
      );

      await restartInto({ io_method: "worker" });
      restarts.push(await waitFor("the second restart kept", () => store.restarts(h(store))[1], 15_000));
      await baselineAfter(collector, restarts[1].seenAt);
      await work(6);
      await waitFor("6 calls after it", () => probeCalls(store, restarts[1].at) >= 6, 15_000);
      const back = compare(store);
      expect(back.changes).toContainEqual({ name: "io_method", before: "sync", after: "worker" });
      // The before side is the server between the two restarts only.
      expect(probeRow(back)).toMatchObject({ before: { calls: 8 }, after: { calls: 6 } });
      // The first restart again, by its time: its after side ends at the next restart.
      const again = compare(store, Math.round(restarts[0].at));
      expect(again.note).toBe("The after side ends at the next restart.");
      expect(probeRow(again)).toMatchObject({ before: { calls: 8 }, after: { calls: 8 } });
    } finally {
      await collector.stop();
      store.close();
    }
  });

  it("survives inflight restarting, and keeps a restart made while no inflight ran", async () => {
    // inflight is down: the server restarts with another io_workers.
    await restartInto({ io_workers: 5 });
    const store = openStore();
    const collector = startCollector(store);
    try {
      const missed = await waitFor("the restart seen on connect", () => store.restarts(h(store))[2], 15_000);
      expect(missed.changes).toEqual([{ name: "io_workers", before: "3", after: "5" }]);
      // The new collector's window knows nothing of it; the history does.
      expect(collector.window.restarts).toHaveLength(0);
      expect(probeRow(compare(store, Math.round(restarts[0].at)))).toMatchObject({ before: { calls: 8 }, after: { calls: 8 } });
    } finally {
      await collector.stop();
      store.close();
    }
    expect(lines).toEqual([]);
  });

  it("serves the comparison and the fleet's restart line from the real server on the same file", async () => {
    const app = await startServer({ INFLIGHT_TARGETS: `own=${own.server.monitorUrl("postgres")}`, INFLIGHT_HISTORY_FILE: file });
    try {
      const res = await fetch(`${app.url}/api/targets/own/compare?at=${Math.round(restarts[0].at)}&before=1h&after=30m`);
      expect(res.status).toBe(200);
      const c = CompareResponse.parse(await res.json());
      expect(c.changes).toEqual([{ name: "io_method", before: "worker", after: "sync" }]);
      expect(probeRow(c)).toMatchObject({ before: { calls: 8 }, after: { calls: 8 } });

      const fleet = FleetResponse.parse(await (await fetch(`${app.url}/api/fleet`)).json());
      expect(fleet.targets[0].lastRestart).toMatchObject({ changes: [{ name: "io_workers", before: "3", after: "5" }] });

      const bad = await fetch(`${app.url}/api/targets/own/compare?before=forever`);
      expect(bad.status).toBe(400);
      expect((await bad.json()).error).toEqual({
        code: "bad_request",
        message: "before: must be a duration such as 1h, 30m or 2d",
        field: "before",
      });
      expect((await fetch(`${app.url}/api/targets/own/compare?at=soon`)).status).toBe(400);
      // Only this target's own history may be named: its server's, or the one kept under its name from schema 1.
      const foreign = await fetch(`${app.url}/api/targets/own/compare?history=${encodeURIComponent("127.0.0.1:1/postgres#1")}`);
      expect(foreign.status).toBe(400);
      expect((await foreign.json()).error).toMatchObject({ code: "bad_request", field: "history" });
      expect((await fetch(`${app.url}/api/targets/own/lab`)).status).toBe(404);
    } finally {
      await app.stop();
    }
  });

  it("with a corrupt file: one line, live without history, and the comparison says why", async () => {
    const corrupt = path.join(dir, "corrupt.db");
    writeFileSync(corrupt, "this was never a database ".repeat(200));
    const app = await startServer({ INFLIGHT_TARGETS: `own=${own.server.monitorUrl("postgres")}`, INFLIGHT_HISTORY_FILE: corrupt });
    try {
      await waitFor(
        "the target up",
        async () => TargetsResponse.parse(await (await fetch(`${app.url}/api/targets`)).json()).targets[0].status === "up",
        20_000,
      );
      const off = app
        .output()
        .split("\n")
        .filter((l) => /history/.test(l));
      expect(off).toHaveLength(1);
      expect(off[0]).toMatch(
        /^\[inflight\] history off: .*corrupt\.db is not a history inflight can read \(file is not a database\): move it away and a new one is started; inflight goes on live, without history$/,
      );
      const res = await fetch(`${app.url}/api/targets/own/compare`);
      expect(res.status).toBe(503);
      expect((await res.json()).error).toMatchObject({
        code: "unavailable",
        message: expect.stringMatching(/^the history is off: .*is not a history inflight can read/),
      });
      expect((await fetch(`${app.url}/api/fleet`)).status).toBe(200);
    } finally {
      await app.stop();
    }
  });
});
