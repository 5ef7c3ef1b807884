// Issue 41's sizing view against a real PostgreSQL 18 of the test's own,
// with the history on (a temp folder), read through the payload
// GET /api/targets/{id}/sizing serves: an idle server is left as is on
// every lever; one io worker behind six cold scans -> raise io_workers, with
// the share of time queued; effective_io_concurrency 1 under cold scans ->
// raise it; the same statement as fast under sync as under worker (its
// sampled runs and its pg_stat_statements calls) -> no io_method advice.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alterSystem } from "../lib/server/demo/admin";
import { WORKERS_PARTIAL_SHARE } from "../lib/model/window/findings/thresholds";
import { startOwnPg, type OwnPg } from "./support/own-pg";
import { connect, waitFor } from "./support/pg";
import { createScanTables } from "./support/scan-tables";
import { leverOf, scanUntil, sizedCollector, type Sized } from "./support/sizing";

const TABLES = ["public.sizing_a", "public.sizing_b", "public.sizing_c"];

describe("the sizing view over a PostgreSQL 18's history", () => {
  let own: OwnPg;
  let admin: pg.Client;
  let s: Sized;
  const superuser = (name: string) => connect(own.server.superuserUrl("postgres"), name);

  async function reload(sql: string, name: string, value: string): Promise<void> {
    await admin.query(sql);
    await admin.query("SELECT pg_reload_conf()");
    await waitFor(`${name} = ${value} read`, () => s.collector.window.settings[name]?.setting === value, 10_000);
  }

  async function scanners<T>(n: number, what: string, until: () => Promise<T | null | false>): Promise<T> {
    const clients = await Promise.all(Array.from({ length: n }, (_, i) => superuser(`sizing-scan-${i}`)));
    try {
      return await scanUntil(clients, own.server.dataDir, TABLES, what, until);
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  }

  beforeAll(async () => {
    own = await startOwnPg();
    admin = await superuser("sizing-admin");
    // 270 MB each over 32 MB of shared_buffers, rows as a table of documents has them: a cold
    // scan waits on its reads (test/support/scan-tables.ts says why). Unlogged: restarts keep them, no WAL.
    await createScanTables(() => superuser("sizing-setup"), TABLES, 270);
    s = await sizedCollector("own", own.server.monitorUrl("postgres"));
  }, 180_000);

  afterAll(async () => {
    await s?.stop();
    await admin?.end();
    await own?.dispose();
  });

  it("an idle server: leave as is, for every lever, with the figures that say so", async () => {
    const from = Date.now();
    const r = await waitFor(
      "ten seconds of an idle server on disk",
      async () => ((await s.sized(from)).sampledMs >= 11_000 ? s.sized(from) : null),
      30_000,
      1000,
    );
    expect(r.levers.map((l) => [l.lever, l.verdict])).toEqual([
      ["io_workers", "leave"],
      ["effective_io_concurrency", "leave"],
      ["maintenance_io_concurrency", "leave"],
      ["io_method", "leave"],
      ["io_combine_limit", "leave"],
    ]);
    expect(leverOf(r, "io_workers").reason).toMatch(/^no backend read through the io workers in the \d+ s sampled/);
    expect(leverOf(r, "io_workers").figures[0].text).toMatch(/^io workers full in 0% of the/);
  });

  it("one io worker behind six cold scans: raise io_workers, with the share of time queued; three workers for the same scans, measured beside it", async () => {
    await alterSystem(own.server, { io_workers: 1 });
    await reload("SELECT 1", "io_workers", "1");
    await waitFor("one io worker alive", () => s.collector.window.lastTick()?.workers.alive === 1, 10_000);
    const from = Date.now();
    const raised = await scanners(6, "io_workers: raise", async () => {
      const l = leverOf(await s.sized(from), "io_workers");
      return l.verdict === "raise" && l;
    });
    const share = raised.figures[0].value!;
    expect(raised.figures[0].text).toMatch(
      /^io workers full in \d+% of the .+ in which backends read through them \(\d+ of \d+ samples\)$/,
    );
    expect(share).toBeGreaterThanOrEqual(WORKERS_PARTIAL_SHARE);
    expect(raised).toMatchObject({ now: "1", applies: "reload" });
    expect(Number(raised.value)).toBeGreaterThan(1);
    expect(Number(raised.value)).toBeLessThanOrEqual(4);
    expect(raised.statements.map((x) => x.query).join("\n")).toMatch(/SELECT count\(\*\) FROM public\.sizing_/);

    await alterSystem(own.server, { io_workers: 3 });
    await reload("SELECT 1", "io_workers", "3");
    await waitFor("three io workers alive", () => s.collector.window.lastTick()?.workers.alive === 3, 10_000);
    const from3 = Date.now();
    // As many samples with reads as the one worker's verdict stood on, then the share.
    const reads1 = Number(/of (\d+) samples/.exec(raised.figures[0].text)![1]);
    const three = await scanners(6, "the same scans, three io workers", async () => {
      const l = leverOf(await s.sized(from3), "io_workers");
      return Number(/of (\d+) samples/.exec(l.figures[0]?.text ?? "")?.[1] ?? 0) >= reads1 && l;
    });
    console.log(
      `[sizing] six cold scans: one io worker: ${raised.figures[0].text} -> ${raised.headline}; three: ${three.figures[0].text} -> ${three.headline}`,
    );
  });

  it("effective_io_concurrency 1 under cold scans: raise it", async () => {
    await reload("ALTER SYSTEM SET effective_io_concurrency = 1", "effective_io_concurrency", "1");
    const from = Date.now();
    try {
      const raised = await scanners(2, "effective_io_concurrency: raise", async () => {
        const l = leverOf(await s.sized(from), "effective_io_concurrency");
        return l.verdict === "raise" && l;
      });
      expect(raised).toMatchObject({ now: "1", value: "16", applies: "reload" });
      expect(raised.figures.map((f) => f.text).join("\n")).toMatch(
        /\d+ of them at the cap: [\d.]+ reads in flight on average at effective_io_concurrency 1/,
      );
      expect(raised.statements.map((x) => x.query).join("\n")).toMatch(/SELECT count\(\*\) FROM public\.sizing_/);
      console.log(`[sizing] effective_io_concurrency 1: ${raised.figures.map((f) => f.text).join("; ")}`);
    } finally {
      await reload("ALTER SYSTEM RESET effective_io_concurrency", "effective_io_concurrency", "16");
    }
  });

  it("the same statement as fast under sync as under worker: no io_method advice", async () => {
    // On CPU, no reads: what io_method cannot change. Under worker before and after sync, so a machine
    // busier for a while (other work on its two cores) widens worker's spread instead of reading as sync's doing.
    const sql = "SELECT count(*) FROM generate_series(1, 600000) AS g WHERE md5(g::text) LIKE 'zz%'";
    const from = Date.now();
    const runTimes = async (n: number) => {
      const c = await superuser("sizing-method");
      try {
        for (let i = 0; i < n; i++) await c.query(sql);
      } finally {
        await c.end();
      }
    };
    const restartTo = async (ioMethod: "sync" | "worker") => {
      await alterSystem(own.server, { io_method: ioMethod });
      await admin.end();
      await own.server.restart();
      admin = await superuser("sizing-admin");
      await waitFor(
        `io_method ${ioMethod} read after the restart`,
        () => s.collector.window.settings.io_method?.setting === ioMethod && s.collector.info().status === "up",
        20_000,
      );
    };
    await runTimes(5);
    await restartTo("sync");
    await runTimes(5);
    await restartTo("worker");
    await runTimes(5);
    // Both sides on disk: the sampled runs, and pg_stat_statements' minutes of each server start.
    const r = await waitFor(
      "the statement's runs and calls under both io_methods on disk",
      async () => {
        const l = leverOf(await s.sized(from), "io_method");
        const runs = l.figures.some((f) => /under worker: .*10 runs/.test(f.text) && /under sync: .*5 runs/.test(f.text));
        const calls = l.figures.some((f) => /pg_stat_statements .* under sync \(5 calls\), .* under worker \(10\)/.test(f.text));
        return runs && calls && l;
      },
      30_000,
      1000,
    );
    console.log(`[sizing] io_method: ${r.figures.map((f) => f.text).join("; ")} -> ${r.headline}: ${r.reason}`);
    expect(r).toMatchObject({ verdict: "leave", now: "worker", value: null });
  });
});
