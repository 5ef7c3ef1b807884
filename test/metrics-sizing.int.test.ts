// The sizing counters on /metrics (issue 41's fleet part), from the real
// built server watching a PostgreSQL 18 of the test's own: with io_workers
// = 1 and nothing reading, the queue counter stays put; behind four
// concurrent cold scans it rises, and it is most of the samples in which
// backends waited for the io workers. The test reads pg_stat_activity
// itself beside it: the io worker's row busy while backends wait is the
// evidence the product's figure is held against.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alterSystem } from "../lib/server/demo/admin";
import { parseMetrics, sampleOf } from "./support/metrics-text";
import { startOwnPg, type OwnPg } from "./support/own-pg";
import { connect, evictFromPageCache, waitFor } from "./support/pg";
import { createScanTables } from "./support/scan-tables";
import { startServer, type RunningServer } from "./support/server";

const TARGET = "127.0.0.1";
const TABLES = ["public.sizing_a", "public.sizing_b"];
const SCANNERS = 4;
/** Samples (10 a second) each phase is judged over. */
const IDLE_SAMPLES = 30;
const BUSY_WAITED = 100;

interface Counters {
  samples: number;
  queue: number;
  waited: number;
  alive: number;
}

async function counters(app: RunningServer): Promise<Counters> {
  const { samples } = parseMetrics(await (await fetch(`${app.url}/metrics`)).text());
  const get = (name: string, labels: Record<string, string> = {}) => sampleOf(samples, name, { target: TARGET, ...labels })?.value ?? NaN;
  return {
    samples: get("inflight_samples_total"),
    queue: get("inflight_io_workers_queue_samples_total"),
    waited: get("inflight_io_workers_read_wait_samples_total"),
    alive: get("inflight_io_workers", { kind: "alive" }),
  };
}

/** The test's own look at the server: its io worker rows and its backends' read waits. */
interface Seen {
  looks: number;
  /** looks in which a client backend waited on its async reads or to hand one over */
  waiting: number;
  /** of those, looks with every io worker busy (not in IoWorkerMain) */
  workersBusy: number;
  /** most io worker rows seen in one look */
  workers: number;
}

async function look(client: pg.Client, seen: Seen): Promise<void> {
  const { rows } = await client.query<{ workers: number; busy: number; waiting: number }>(
    `SELECT count(*) FILTER (WHERE backend_type = 'io worker')::int AS workers,
            count(*) FILTER (WHERE backend_type = 'io worker' AND wait_event IS DISTINCT FROM 'IoWorkerMain')::int AS busy,
            count(*) FILTER (WHERE backend_type = 'client backend' AND wait_event IN ('AioIoCompletion', 'AioWorkerSubmissionQueue'))::int AS waiting
       FROM pg_stat_activity`,
  );
  const r = rows[0];
  seen.looks++;
  seen.workers = Math.max(seen.workers, r.workers);
  if (r.waiting === 0) return;
  seen.waiting++;
  if (r.busy >= r.workers) seen.workersBusy++;
}

/** Looks at the server every 50 ms until the product's counters say `done`; both views over the same span. */
async function watchUntil(
  app: RunningServer,
  client: pg.Client,
  what: string,
  done: (from: Counters, now: Counters) => boolean,
  timeoutMs: number,
) {
  const seen: Seen = { looks: 0, waiting: 0, workersBusy: 0, workers: 0 };
  const from = await counters(app);
  const to = await waitFor(
    what,
    async () => {
      await look(client, seen);
      const now = await counters(app);
      return done(from, now) && now;
    },
    timeoutMs,
  );
  return { seen, from, to };
}

describe("the io workers' queue counters on /metrics, one io worker", () => {
  let own: OwnPg;
  let admin: pg.Client;
  let app: RunningServer;
  const superuser = () => connect(own.server.superuserUrl("postgres"), "metrics-sizing");

  beforeAll(async () => {
    own = await startOwnPg();
    admin = await superuser();
    // 200 MB each, many times shared_buffers (32 MB).
    await createScanTables(superuser, TABLES, 200);
    await alterSystem(own.server, { io_workers: 1 });
    await admin.query("SELECT pg_reload_conf()");
    await waitFor(
      "one io worker row",
      async () => (await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'io worker'")).rows[0].n === 1,
      10_000,
    );
    app = await startServer({ DATABASE_URL: own.server.monitorUrl("postgres"), INFLIGHT_SAMPLE_MS: "100", INFLIGHT_IDLE_SAMPLE_MS: "100" });
    await waitFor("target up, one io worker alive", async () => (await counters(app)).alive === 1, 20_000);
  }, 180_000);

  afterAll(async () => {
    await app?.stop();
    await admin?.end();
    await own?.dispose();
  });

  it("nothing reading: the queue counter and its denominator stay put", async () => {
    const { seen, from, to } = await watchUntil(
      app,
      admin,
      `${IDLE_SAMPLES} samples`,
      (a, b) => b.samples - a.samples >= IDLE_SAMPLES,
      30_000,
    );
    // The test's own view agrees that nothing waited for the io worker.
    expect(seen.waiting).toBe(0);
    expect(seen.workers).toBe(1);
    expect({ queue: to.queue - from.queue, waited: to.waited - from.waited }).toEqual({ queue: 0, waited: 0 });
  });

  it(`${SCANNERS} concurrent cold scans behind it: the queue counter rises, most of the samples waited for it`, async () => {
    const scanners = await Promise.all(Array.from({ length: SCANNERS }, () => superuser()));
    let scanning = true;
    const loops = scanners.map(async (c, i) => {
      const t = TABLES[i % TABLES.length];
      await c.query("SET max_parallel_workers_per_gather = 0; SET synchronize_seqscans = off");
      while (scanning) {
        await evictFromPageCache(c, own.server.dataDir, t);
        await c.query(`SELECT count(*) FROM ${t}`);
      }
    });
    try {
      const { seen, from, to } = await watchUntil(
        app,
        admin,
        `${BUSY_WAITED} samples waiting for the io worker`,
        (a, b) => b.waited - a.waited >= BUSY_WAITED,
        90_000,
      );
      const queue = to.queue - from.queue;
      const waited = to.waited - from.waited;
      const share = queue / waited;
      const ownShare = seen.workersBusy / Math.max(1, seen.waiting);
      console.log(
        `[metrics-sizing] /metrics: queue ${queue} of ${waited} samples waited for the io worker (${(share * 100).toFixed(0)}%), ${to.samples - from.samples} samples; ` +
          `pg_stat_activity: the worker busy in ${seen.workersBusy} of ${seen.waiting} looks with a backend waiting (${(ownShare * 100).toFixed(0)}%), ${seen.looks} looks`,
      );
      expect(queue).toBeGreaterThan(0);
      expect(queue).toBeLessThanOrEqual(waited);
      expect(share).toBeGreaterThanOrEqual(0.6);
      // The test's own look saw the one worker busy while backends waited, as often.
      expect(seen.waiting).toBeGreaterThan(10);
      expect(ownShare).toBeGreaterThanOrEqual(0.6);
    } finally {
      scanning = false;
      await Promise.all(loops);
      await Promise.all(scanners.map((c) => c.end()));
    }
  });
});
