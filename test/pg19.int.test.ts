// Size: one PostgreSQL 19 in the Debian folder for all its cases (bringing one up costs tens of seconds).
// inflight watching PostgreSQL 19 (Debian experimental's, in the folder
// scripts/iouring-pg.mjs makes; see test/support/iouring.ts): 19 has no
// io_workers and sizes its io worker pool itself between io_min_workers and
// io_max_workers. Its settings are read as the server has them, the pool's
// growth is in the ticks and the findings (growing, not the limit), the
// check passes within the band, and a pool at its maximum and saturated says
// to raise io_max_workers. Through the real built server the settings it
// reports, /metrics (the pool's settings, bound and launches; nothing for
// io_workers) and the window's CSV are the pool's. Where the machine cannot
// run it, the run fails with the reason (IOURING_TESTS=skip: left out,
// saying so).
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IO_COLUMNS, SUMMARY_COLUMNS, summaryColumns, summaryTable } from "../lib/model/lab/export";
import { summarize } from "../lib/model/lab/summary";
import { Collector } from "../lib/server/collector/collector";
import { dropFromPageCache } from "../lib/server/demo/evict";
import { runLab } from "../lib/server/lab/runner";
import { prepareLab } from "../lib/server/lab/statement";
import { shellQuote } from "../lib/server/lab/shell";
import { startLab } from "./support/lab";
import { connect, evictFromPageCache, waitFor, TEST_COLLECTOR } from "./support/pg";
import { pg19Available, startPg19, type IoUringPg } from "./support/iouring";
import { startServer, type RunningServer } from "./support/server";
import type { Finding } from "../lib/schemas/findings";
import { WindowSnapshot } from "../lib/schemas/window";

const io = await pg19Available();
if (!io.ok) console.log(`[pg19] not run, as asked: ${io.why}`);

const TABLE = "public.pool_probe";
/** A DATABASE_URL target is named after its host. */
const HOST = "127.0.0.1";
/** Concurrent cold scans: enough queueing that the pool grows (eight took it from 2 to 4 in 3 s, PG18-FACTS). */
const SCANS = 8;
const POOL_SETTINGS = ["io_min_workers", "io_max_workers", "io_worker_idle_timeout", "io_worker_launch_interval"];

async function startWatched(
  name: string,
  settings: Record<string, string>,
): Promise<{ server: IoUringPg; collector: Collector; stop: () => Promise<void> }> {
  const server = await startPg19({ settings });
  const admin = await connect(server.superuserUrl(), "pg19-admin");
  try {
    // ~180 MB over 32 MB of shared_buffers: every scan reads (through the io workers), none fits.
    // Unlogged: no WAL to write (its restarts are clean, so it keeps its rows), read as any table.
    await admin.query(
      `CREATE UNLOGGED TABLE ${TABLE} AS SELECT g AS id, repeat(md5(g::text), 6) AS payload FROM generate_series(1, 800000) AS g`,
    );
    await admin.query(`VACUUM ANALYZE ${TABLE}`);
  } finally {
    await admin.end();
  }
  const collector = new Collector({
    id: name,
    name,
    demo: false,
    watchedSampleMs: 20,
    idleSampleMs: 1000,
    windowMs: 10 * 60_000,
    ...TEST_COLLECTOR,
  });
  const unsubscribe = collector.feed.subscribe(() => undefined);
  collector.start(server.superuserUrl());
  await waitFor(
    "up with the io workers check",
    () => collector.info().status === "up" && collector.window.checks.some((c) => c.id === "io_workers"),
    20_000,
  );
  return {
    server,
    collector,
    async stop() {
      unsubscribe();
      await collector.stop();
      await server.stop();
    },
  };
}

/**
 * SCANS backends scanning the table over and over, each scan cold from the OS
 * page cache and serial, until `seen` holds (bounded): what the pool does
 * is judged while they run.
 */
async function scanUntil<T>(server: IoUringPg, what: string, seen: () => T | null | undefined | false, timeoutMs = 60_000): Promise<T> {
  const clients = await Promise.all(Array.from({ length: SCANS }, (_, i) => connect(server.superuserUrl(), `pg19-scan-${i}`)));
  let scanning = true;
  const loops = clients.map(async (c) => {
    await c.query("SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = off");
    while (scanning) {
      await evictFromPageCache(c, server.dataDir, TABLE);
      await c.query(`SELECT count(*) FROM ${TABLE}`);
    }
  });
  try {
    return await waitFor(what, seen, timeoutMs, 20);
  } finally {
    scanning = false;
    await Promise.all(loops);
    await Promise.all(clients.map((c) => c.end()));
  }
}

const texts = (c: Collector) => [...c.window.checks.map((x) => x.message), ...c.window.findings.findings.map((f) => f.text)].join("\n");

describe.skipIf(!io.ok)("inflight on PostgreSQL 19's io worker pool", () => {
  describe("the default pool (2 to 8)", () => {
    let watched: Awaited<ReturnType<typeof startWatched>>;
    /** the real built server watching the same 19 (its target named after the host), from before the pool grows */
    let app: RunningServer;
    const w = () => watched.collector.window;

    beforeAll(async () => {
      watched = await startWatched("pg19", {});
      // Sampling 10 times a second without a viewer, as the /metrics test does: it sees the pool's launches as they come.
      app = await startServer({ DATABASE_URL: watched.server.superuserUrl(), INFLIGHT_SAMPLE_MS: "100", INFLIGHT_IDLE_SAMPLE_MS: "100" });
      await waitFor(
        "the real server's target up",
        async () => (await (await fetch(`${app.url}/api/targets`)).json()).targets[0]?.status === "up",
        30_000,
        250,
      );
    }, 600_000);
    afterAll(async () => {
      await app?.stop();
      await watched?.stop();
    });

    it("reads the pool's settings as the server has them: no io_workers, nothing NaN", async () => {
      await waitFor("settings read", () => w().settings.io_max_workers, 10_000);
      expect(watched.collector.info().serverVersionNum).toBeGreaterThanOrEqual(190000);
      for (const name of POOL_SETTINGS) expect(w().settings[name]?.setting).toMatch(/^\d+$/);
      expect(w().settings.io_workers).toBeUndefined();
      expect(w().lastTick()?.workers).toMatchObject({ configured: 2, max: 8 });
      const check = w().checks.find((c) => c.id === "io_workers");
      expect(check).toMatchObject({ status: "pass" });
      expect(check?.message).toMatch(/within io_min_workers = 2 to io_max_workers = 8/);
      expect(texts(watched.collector)).not.toMatch(/NaN|undefined|io_workers\b/);
    });

    it("the pool grows under concurrent cold scans: the ticks show the launches, the findings say it grows and is not the limit, the check passes within the band", async () => {
      const from = Date.now();
      // The finding holds while a launch is within its last 5 s: kept when first seen.
      let growing: Finding | undefined;
      const grown = await scanUntil(watched.server, "the pool above io_min_workers, and the finding that it grows", () => {
        growing ??= w().findings.findings.find((f) => f.rule === "pool_growing");
        const tick = w()
          .allTicks()
          .find((t) => t.t >= from && t.workers.alive > 2 && (t.workers.launched ?? 0) > 0);
        return growing && tick;
      });
      expect(growing!.severity).toBe("info");
      expect(growing!.text).toMatch(
        /^The io worker pool is growing: \d+ io workers? launched in the last 5 s \(\d+ -> \d+, of up to io_max_workers = 8\)\. PostgreSQL 19 adds workers when reads queue for them: the pool is not the limit\./,
      );
      expect(growing!.evidence).toMatchObject({ ioMinWorkers: 2, ioMaxWorkers: 8 });
      expect(growing!.evidence.alive).toBeLessThan(8);
      expect(growing!.text).not.toMatch(/NaN|undefined|io_workers\b/);
      expect(grown.workers.max).toBe(8);
      expect(grown.workers.alive).toBeLessThanOrEqual(8);
      const check = w().checks.find((c) => c.id === "io_workers");
      expect(check?.status).toBe("pass");
      expect(texts(watched.collector)).not.toMatch(/NaN|undefined|io_workers\b/);
    });

    it("through the real server: the settings it reports are the pool's, /metrics has the pool's settings, bound and launches, none for io_workers", async () => {
      const snapshot = WindowSnapshot.parse(
        await (await fetch(`${app.url}/api/targets/${HOST}/window?from=${Date.now() - 60_000}`)).json(),
      );
      for (const name of POOL_SETTINGS) expect(snapshot.settings[name]?.setting, name).toMatch(/^\d+$/);
      expect(snapshot.settings.io_workers).toBeUndefined();
      const seriesIn = (metrics: string, name: string, labels = "") =>
        new RegExp(`^${name}\\{target="${HOST.replaceAll(".", "\\.")}"${labels}\\} (\\S+)$`, "m").exec(metrics)?.[1];
      // It watched the pool grow above io_min_workers (the case above): a worker it had not seen before.
      const metrics = await waitFor(
        "/metrics counting a launch",
        async () => {
          const text = await (await fetch(`${app.url}/metrics`)).text();
          return Number(seriesIn(text, "inflight_io_workers_launched_total")) >= 1 && text;
        },
        20_000,
        250,
      );
      const series = (name: string, labels = "") => seriesIn(metrics, name, labels);
      expect(series("inflight_setting", ',name="io_min_workers"')).toBe("2");
      expect(series("inflight_setting", ',name="io_max_workers"')).toBe("8");
      expect(metrics).not.toMatch(/name="io_workers"/);
      expect(series("inflight_io_workers", ',kind="configured"')).toBe("2");
      expect(series("inflight_io_workers", ',kind="max"')).toBe("8");
      expect(series("inflight_io_workers_exited_total")).toMatch(/^\d+$/);
      // The sizing counters of a 19 pool (issue 41): the samples at io_max_workers, with and without the queue.
      expect(series("inflight_io_worker_pool_at_max_samples_total")).toMatch(/^\d+$/);
      expect(series("inflight_io_worker_pool_at_max_queue_samples_total")).toMatch(/^\d+$/);
      expect(Number(series("inflight_io_workers_queue_samples_total"))).toBeLessThanOrEqual(
        Number(series("inflight_io_workers_read_wait_samples_total")),
      );
      // The window's CSV names the pool's setting, not 18's io_workers.
      const header = (await (await fetch(`${app.url}/api/targets/${HOST}/export?format=csv`)).text()).split("\n")[0].split(",");
      expect(header).toEqual(expect.arrayContaining(["io_min_workers", "io_workers_max", "io_workers_launched", "io_workers_exited"]));
      expect(header).not.toContain("io_workers_configured");
    });
  });

  describe("the lab", () => {
    let watched: Awaited<ReturnType<typeof startWatched>>;
    let server: IoUringPg;

    beforeAll(async () => {
      watched = await startWatched("pg19-lab", {});
      server = watched.server;
    }, 600_000);
    afterAll(async () => watched?.stop());

    it("runs EXPLAIN (ANALYZE, BUFFERS, IO): each run has its scan's prefetch distance and I/Os, the table shows them", async () => {
      const cluster = {
        url: server.superuserUrl(),
        dataDir: server.dataDir,
        restart: () => server.restart(),
        dropCache: dropFromPageCache,
        cold: "restarted, files dropped",
      };
      const statement = { sql: `SELECT count(*) FROM ${TABLE}`, settings: [] as [string, string][], readRole: null, custom: true };
      const prepared = await prepareLab(cluster, statement, "io_method", ["sync", "worker"]);
      expect(prepared.explainIo).toBe(true);
      const outcome = await runLab(cluster, prepared, {
        lever: "io_method",
        values: ["sync", "worker"],
        concurrency: 1,
        runs: 1,
        signal: new AbortController().signal,
        progress: () => undefined,
      });
      expect(outcome.error).toBeNull();
      expect(outcome.restoredTo).toBe("worker");
      for (const run of outcome.runs) {
        expect(run.io?.node).toMatch(/Seq Scan/);
        expect(run.io?.capacity).toBeGreaterThan(0);
        expect(run.io?.ioCount).toBeGreaterThan(0);
      }
      const summary = summarize(outcome.runs, ["sync", "worker"]);
      // The table's columns are 18's and EXPLAIN (IO)'s, on the page and in `npm run lab` alike.
      expect(summaryColumns(summary).map(([header]) => header)).toEqual([...SUMMARY_COLUMNS, ...IO_COLUMNS].map(([header]) => header));
      for (const s of summary)
        expect(IO_COLUMNS.map(([, cell]) => cell(s))).toEqual([
          expect.stringMatching(/^\d+\.\d \/ \d+ \/ \d+$/),
          expect.stringMatching(/^[\d,]+ I\/Os, [\d,]+ waited/),
        ]);
      expect(summaryTable(summary)).toMatch(/prefetch \(avg \/ max \/ capacity\)\s+scan I\/Os$/m);
    });

    it("npm run lab the same: its table has the EXPLAIN (IO) columns", async () => {
      const script = path.resolve(import.meta.dirname, "..", "scripts", "iouring-pg.mjs");
      const restart = `${shellQuote(process.execPath)} ${shellQuote(script)} restart --data ${server.name}`;
      const drop = 'for f in {files}; do dd if="$f" iflag=nocache count=0 status=none; done';
      const lab = startLab([
        "--url",
        server.superuserUrl(),
        "--restart",
        restart,
        "--drop-cache",
        drop,
        "--data-dir",
        server.dataDir,
        "--sql",
        `SELECT count(*) FROM ${TABLE}`,
        "--methods",
        "worker",
        "--runs",
        "1",
      ]);
      expect(await lab.exited, lab.stderr()).toBe(0);
      expect(lab.stdout()).toMatch(/prefetch \(avg \/ max \/ capacity\)\s+scan I\/Os$/m);
      expect(lab.stdout()).toMatch(/^worker\s+1\s.*\d+\.\d \/ \d+ \/ \d+\s+[\d,]+ I\/Os, [\d,]+ waited/m);
      expect(lab.stdout()).not.toContain("comes with PostgreSQL 19");
    });
  });

  describe("a pool of one (io_min_workers = io_max_workers = 1)", () => {
    let watched: Awaited<ReturnType<typeof startWatched>>;

    beforeAll(async () => {
      watched = await startWatched("pg19-one", { io_min_workers: "1", io_max_workers: "1" });
    }, 600_000);
    afterAll(async () => watched?.stop());

    it("saturated at its maximum: raise io_max_workers, never io_workers", async () => {
      // A running scan's finding says it when one runs (the server's then stays silent), the server's when none does.
      const finding = await scanUntil(watched.server, "the saturated-pool finding", () =>
        watched.collector.window.findings.findings.find((f) => f.rule === "workers_queue"),
      );
      expect(finding.text).toMatch(
        finding.runId
          ? /the pool is at its maximum: raise io_max_workers \(now 1; a reload applies it\)/
          : /^The io worker pool is at its maximum \(1\) and saturated: raise io_max_workers \(now 1; a reload applies it\)/,
      );
      expect(finding.evidence).toMatchObject({ ioWorkers: 1 });
      expect(finding.text).not.toMatch(/NaN|undefined|io_workers\b/);
    });
  });
});
