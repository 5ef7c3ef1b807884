// Issue 41's sizing view on PostgreSQL 19 (Debian experimental's, see
// test/support/iouring.ts): the io worker pool held at io_max_workers = 2
// (io_min_workers = 1) under eight concurrent cold scans -> raise
// io_max_workers, with the time at the maximum; no io_workers lever (19 has
// none). With the history on, read through the route's payload. Where the
// machine cannot run 19 the run fails with the reason (IOURING_TESTS=skip:
// left out, saying so).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WORKERS_PARTIAL_SHARE } from "../lib/model/window/findings/thresholds";
import { pg19Available, startPg19, type IoUringPg } from "./support/iouring";
import { connect } from "./support/pg";
import { leverOf, scanUntil, sizedCollector, type Sized } from "./support/sizing";

const io = await pg19Available();
if (!io.ok) console.log(`[sizing-pg19] not run, as asked: ${io.why}`);

const TABLE = "public.sizing_pool";
const SCANS = 8;

describe.skipIf(!io.ok)("the sizing view over a PostgreSQL 19's history", () => {
  let server: IoUringPg;
  let s: Sized;

  beforeAll(async () => {
    server = await startPg19({ settings: { io_min_workers: "1", io_max_workers: "2" } });
    const admin = await connect(server.superuserUrl(), "sizing19-admin");
    try {
      // ~180 MB over 32 MB of shared_buffers, as pg19.int.test.ts's: every scan reads through the io workers.
      await admin.query(
        `CREATE UNLOGGED TABLE ${TABLE} AS SELECT g AS id, repeat(md5(g::text), 6) AS payload FROM generate_series(1, 800000) AS g`,
      );
      await admin.query(`VACUUM ANALYZE ${TABLE}`);
    } finally {
      await admin.end();
    }
    s = await sizedCollector("pg19", server.superuserUrl(), 50);
  }, 600_000);

  afterAll(async () => {
    await s?.stop();
    await server?.stop();
  });

  it("the pool at io_max_workers 2 under eight cold scans: raise io_max_workers, with the time at the maximum", async () => {
    const from = Date.now();
    const clients = await Promise.all(Array.from({ length: SCANS }, (_, i) => connect(server.superuserUrl(), `sizing19-scan-${i}`)));
    try {
      const r = await scanUntil(clients, server.dataDir, [TABLE], "io_max_workers: raise", async () => {
        const sized = await s.sized(from);
        return leverOf(sized, "io_max_workers").verdict === "raise" && sized;
      });
      const max = leverOf(r, "io_max_workers");
      console.log(
        `[sizing-pg19] ${max.headline}: ${max.figures.map((f) => f.text).join("; ")}; io_min_workers: ${leverOf(r, "io_min_workers").headline}`,
      );
      expect(max).toMatchObject({ now: "2", applies: "reload" });
      expect(Number(max.value)).toBeGreaterThan(2);
      expect(Number(max.value)).toBeLessThanOrEqual(8);
      expect(max.figures[0].text).toMatch(/^io workers full at io_max_workers \(2\) in \d+% of the .+ in which backends read through them/);
      expect(max.figures[0].value!).toBeGreaterThanOrEqual(WORKERS_PARTIAL_SHARE);
      expect(max.figures[1].text).toMatch(/^the pool at io_max_workers in \d+% of the .+ sampled; at most 2 alive$/);
      expect(r.levers.map((l) => l.lever)).not.toContain("io_workers");
      expect(leverOf(r, "io_min_workers").verdict).not.toBe("unknown");
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });
});
