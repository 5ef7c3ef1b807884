// Issue 13: the labs' A/B as a button, through the real built server and its
// embedded demo (a small table of its own): sync and worker, 5 cold runs
// each, a table whose medians are EXPLAIN's own Execution Times (checked
// against the raw EXPLAIN output it exports), io_method put back; a request
// that is not one read-only SELECT is a 400 naming the field; an SQL error
// halfway is one line and io_method is still put back.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_COLUMNS, summaryColumns } from "../lib/model/lab/export";
import { median } from "../lib/model/lab/summary";
import { LabExport, LabState } from "../lib/schemas/lab";
import { TargetsResponse } from "../lib/schemas/api";
import { waitFor } from "./support/pg";
import { startDemoLab, type DemoLabServer } from "./support/demo-lab";
import type { RunningServer } from "./support/server";

describe("the demo's A/B lab (real server, embedded PostgreSQL 18)", () => {
  let lab: DemoLabServer;
  let app: RunningServer;
  const post = (body: unknown, type?: string) => lab.post(body, type);
  const state = () => lab.state();
  const finished = () => lab.finished();
  const ioMethod = async () => TargetsResponse.parse(await (await fetch(`${app.url}/api/targets`)).json()).targets[0].ioMethod;

  beforeAll(async () => {
    lab = await startDemoLab(32);
    app = lab.app;
  }, 180_000);
  // The last test stops the server itself (a stop halfway through a lab).
  afterAll(async () => lab?.stop());

  it.each([
    [{ query: "custom", sql: "DELETE FROM public.readings", methods: ["sync"] }, "sql", /^sql: must be one read-only SELECT, not DELETE$/],
    [{ query: "custom", sql: "SELEC 1", methods: ["sync"] }, "sql", /^sql: must be one read-only SELECT, not SELEC$/],
    [
      { query: "custom", sql: "SELECT nope FROM public.readings", methods: ["sync"] },
      "sql",
      /^sql: PostgreSQL refused it: column "nope" does not exist/,
    ],
    // The lab's role may read every table and nothing more: a writing CTE is refused by PostgreSQL itself.
    [
      { query: "custom", sql: "WITH d AS (DELETE FROM public.readings RETURNING 1) SELECT count(*) FROM d", methods: ["sync"] },
      "sql",
      /^sql: PostgreSQL refused it: permission denied for table readings$/,
    ],
    [{ query: "seq", methods: ["io_uring"] }, "methods", /^methods: this build offers sync, worker, not io_uring$/],
    [{ query: "seq", methods: [] }, "methods", /needs at least one io_method/],
    [{ query: "seq", methods: ["sync"], runs: 0 }, "runs", /^runs: /],
    [{ query: "seq", methods: ["sync"], sql: "SELECT 1" }, "sql", /only for query = custom/],
  ])("refuses %j with a 400 naming %s", (body, field, message) => lab.refused(body, field, message));

  it("refuses a body that is not sent as JSON", async () => {
    const res = await post({ query: "seq", methods: ["sync"] }, "text/plain");
    expect(res.status).toBe(415);
    expect((await res.json()).error.field).toBe("body");
  });

  it("runs sync and worker, 5 cold runs each, in turns; the medians are EXPLAIN's own; io_method is back", async () => {
    const started = Date.now();
    const res = await post({ query: "seq", methods: ["sync", "worker"], runs: 5 });
    expect(res.status).toBe(202);
    expect(LabState.parse(await res.json())).toMatchObject({ state: "running", progress: { total: 10 } });
    // One lab at a time, and the demo controls wait for it.
    expect((await post({ query: "seq", methods: ["sync"] })).status).toBe(409);
    expect(
      (
        await fetch(`${app.url}/api/targets/demo/demo`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Origin: app.url },
          body: JSON.stringify({ io_method: "sync" }),
        })
      ).status,
    ).toBe(409);

    const done = await finished();
    expect(Date.now() - started).toBeLessThan(180_000);
    expect(done).toMatchObject({ state: "done", error: null, restoredTo: "worker", progress: { done: 10, total: 10 } });
    expect(done.runs.map((r) => `${r.round}:${r.method}`)).toEqual([
      "1:sync",
      "1:worker",
      "2:worker",
      "2:sync",
      "3:sync",
      "3:worker",
      "4:worker",
      "4:sync",
      "5:sync",
      "5:worker",
    ]);
    expect(done.summary.map((s) => [s.method, s.runs])).toEqual([
      ["sync", 5],
      ["worker", 5],
    ]);
    // The embedded 18 has no EXPLAIN (IO): the state says so (the page then says it comes with 19), no run has its figures.
    expect(done.explainIo).toBe(false);
    expect(done.runs.every((r) => r.io == null)).toBe(true);
    expect(summaryColumns(done.summary).map(([header]) => header)).toEqual(SUMMARY_COLUMNS.map(([header]) => header));

    const exported = LabExport.parse(await (await fetch(`${app.url}/api/targets/demo/lab/export?format=json`)).json());
    expect(exported.explains).toHaveLength(10);
    expect(exported).toMatchObject({ explainIo: false, serverVersion: expect.stringMatching(/^18\./) });
    for (const s of done.summary) {
      const raw = exported.explains
        .filter((e) => e.method === s.method)
        .map((e) => (e.explain as { "Execution Time": number }[])[0]["Execution Time"]);
      expect(s.medianMs).toBe(median(raw));
      expect([s.minMs, s.maxMs]).toEqual([Math.min(...raw), Math.max(...raw)]);
    }
    // Cold: every run read the table from outside shared buffers.
    for (const r of done.runs) expect(r.sharedRead).toBeGreaterThan(3000);
    const csv = await (await fetch(`${app.url}/api/targets/demo/lab/export?format=csv`)).text();
    expect(csv.trim().split("\n")).toHaveLength(11);
    await waitFor("the target back on worker", async () => (await ioMethod()) === "worker", 15_000);
  }, 240_000);

  it("an SQL error halfway is one line, and io_method is still put back", async () => {
    const res = await post({
      query: "custom",
      sql: "SELECT count(*) FROM public.readings WHERE 1 / (id - id) = 0",
      methods: ["sync", "worker"],
      runs: 1,
    });
    expect(res.status).toBe(202);
    const done = await finished();
    expect(done.state).toBe("failed");
    expect(done.error).toBe("run 1 of 2 (round 1 of 1, sync): division by zero");
    expect(done.restoredTo).toBe("worker");
  });

  it("inflight stopped during a lab (SIGTERM, as Ctrl-C): io_method is put back before the server stops", async () => {
    expect((await post({ query: "seq", methods: ["sync"], runs: 20 })).status).toBe(202);
    await waitFor("a first run on sync", async () => (await state()).runs.length > 0, 60_000, 100);
    await app.stop();
    expect(app.output()).toMatch(/\[inflight\] lab: stopped before the end, after \d+ of 20 runs/);
    // The next start reads this file: io_method comes from inflight's own settings again (worker).
    expect(readFileSync(path.join(lab.dir, "demo-pg", "postgresql.auto.conf"), "utf8")).not.toMatch(/io_method/);
  });
});
