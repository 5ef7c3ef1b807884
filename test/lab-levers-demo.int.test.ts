// Issue 41: the demo's lab button compares io_workers (1 vs 3, 4 sessions at
// once) and effective_io_concurrency (1 vs 16) by ALTER SYSTEM and a reload,
// through the real built server and its embedded PostgreSQL 18. From the
// server's own figures: each value was in force during its runs (SHOW in
// every session, the io worker rows while they ran), no restart happened
// (pg_postmaster_start_time), the start's value is back, and the result is
// in the demo server's history. A lever 18 lacks is a 400 naming it. Few
// rounds: the behaviour is under test, not which value is faster.
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LabExport, LabState } from "../lib/schemas/lab";
import { labResultsIn, startDemoLab, type DemoLabServer } from "./support/demo-lab";

describe("the demo's lab by reload: io_workers and effective_io_concurrency (real server, embedded PostgreSQL 18)", () => {
  let lab: DemoLabServer;

  /** The demo server as its superuser sees it (its password is in the demo folder's secrets). */
  async function server(): Promise<{ started: string; ioWorkers: string; eic: string; workers: number; autoConf: string }> {
    const dataDir = path.join(lab.dir, "demo-pg");
    const { superuserPassword } = JSON.parse(readFileSync(path.join(lab.dir, "demo-pg.secrets.json"), "utf8"));
    const port = readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[3];
    const c = new pg.Client({ host: "127.0.0.1", port: Number(port), user: "postgres", password: superuserPassword, database: "postgres" });
    await c.connect();
    try {
      const { rows } = await c.query(
        "SELECT pg_postmaster_start_time()::text AS started, current_setting('io_workers') AS io_workers, current_setting('effective_io_concurrency') AS eic, (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'io worker') AS workers",
      );
      return {
        started: rows[0].started,
        ioWorkers: rows[0].io_workers,
        eic: rows[0].eic,
        workers: rows[0].workers,
        autoConf: readFileSync(path.join(dataDir, "postgresql.auto.conf"), "utf8"),
      };
    } finally {
      await c.end();
    }
  }

  const kept = () => labResultsIn(path.join(lab.dir, "history.db"));

  beforeAll(async () => {
    lab = await startDemoLab(96, 300_000);
  }, 180_000);
  afterAll(async () => lab?.stop());

  it.each([
    [
      { query: "seq", lever: "io_max_workers", values: [1, 4] },
      "lever",
      /^lever: io_max_workers does not exist on PostgreSQL 18 \(18 has a fixed number of io workers: compare io_workers\)$/,
    ],
    [{ query: "seq", lever: "io_workers", values: [1, 33] }, "values", /io_workers must be a whole number from 1 to 32, not 33/],
    [{ query: "seq", lever: "io_workers", methods: ["sync"] }, "methods", /only for lever = io_method/],
    [{ query: "seq", lever: "io_workers", values: [1, 3], concurrency: 0 }, "concurrency", /^concurrency: /],
  ])("refuses %j with a 400 naming %s", (body, field, message) => lab.refused(body, field, message));

  it("io_workers 1 vs 3, 4 sessions, 2 rounds: in force in every session and in the io worker rows, no restart, 3 back, the result in the demo's history", async () => {
    const before = await server();
    expect(before).toMatchObject({ ioWorkers: "3", workers: 3 });
    const res = await lab.post({ query: "seq", lever: "io_workers", values: [1, 3], runs: 2 });
    expect(res.status).toBe(202);
    expect(LabState.parse(await res.json()).request).toMatchObject({ lever: "io_workers", values: ["1", "3"], concurrency: 4 });
    const done = await lab.finished();
    expect(done).toMatchObject({ state: "done", error: null, restoredTo: "3", progress: { done: 4, total: 4 } });
    expect(done.cold).toMatch(/reload .* pg_buffercache_evict_all/);
    expect(done.runs.map((r) => `${r.round}:${r.value}`)).toEqual(["1:1", "1:3", "2:3", "2:1"]);
    for (const r of done.runs) {
      expect(r.shown).toBe(r.value);
      expect(r.workers).toMatchObject({ min: Number(r.value), max: Number(r.value) });
      expect(r.sessionsMs).toHaveLength(4);
      // Read from outside shared buffers (emptied before each round), not all hits: four sessions on one
      // table share its blocks, so how many each reads itself is not promised (CI: 4507 of ~12,000).
      expect(r.sharedRead).toBeGreaterThan(0);
    }
    expect(done.summary.map((s) => [s.value, s.runs])).toEqual([
      ["1", 2],
      ["3", 2],
    ]);
    const exported = LabExport.parse(await (await fetch(`${lab.app.url}/api/targets/demo/lab/export?format=json`)).json());
    expect(exported.explains).toHaveLength(16);

    const after = await server();
    expect(after.started).toBe(before.started);
    expect(after).toMatchObject({ ioWorkers: "3", workers: 3 });
    expect(after.autoConf).not.toMatch(/io_workers/);
    const [entry] = kept();
    expect(entry.history).toMatch(/^embedded:/);
    expect(entry.result).toMatchObject({
      lever: "io_workers",
      concurrency: 4,
      rounds: 2,
      ioMethod: "worker",
      serverVersion: expect.stringMatching(/^18\./),
    });
    expect(entry.result.rows.map((r) => [r.value, r.runs, r.medianMs])).toEqual(done.summary.map((s) => [s.value, s.runs, s.medianMs]));
  }, 300_000);

  it("effective_io_concurrency 1 vs 16, one session: SHOW in the session says each, no restart, 16 back, kept too", async () => {
    const before = await server();
    expect((await lab.post({ query: "seq", lever: "effective_io_concurrency", values: ["1", "16"], runs: 2 })).status).toBe(202);
    const done = await lab.finished();
    expect(done).toMatchObject({ state: "done", restoredTo: "16" });
    expect(done.runs.map((r) => [r.value, r.shown])).toEqual([
      ["1", "1"],
      ["16", "16"],
      ["16", "16"],
      ["1", "1"],
    ]);
    const after = await server();
    expect(after.started).toBe(before.started);
    expect(after.eic).toBe("16");
    expect(after.autoConf).not.toMatch(/effective_io_concurrency/);
    expect(kept().map((k) => k.result.lever)).toEqual(["io_workers", "effective_io_concurrency"]);
  }, 300_000);
});
