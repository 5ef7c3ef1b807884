// Issue 15, against the real built server watching a PostgreSQL 18 of the
// test's own, with Chromium on the target's page:
// - nothing inflight runs queues behind a user's lock: with an ACCESS
//   EXCLUSIVE request queued on the table a scan is reading, inflight's
//   session never waits on a lock, the scan's relation is still named, and
//   the wait events keep their cadence;
// - a collection aspect that fails (pg_stat_io denied) shows as itself on the
//   page, in /api/targets and in /metrics while the target stays up and the
//   other aspects go on; and it clears when the view can be read again.
import type pg from "pg";
import { chromium, type Browser, type Page } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TargetsResponse } from "../lib/schemas/api";
import type { WindowSnapshot } from "../lib/schemas/window";
import type { TargetInfo } from "../lib/schemas/target";
import { startOwnPg, type OwnPg } from "./support/own-pg";
import { connect, evictFromPageCache, ownStatementCalls, waitFor } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";
import { openSse, slotTicksArrived } from "./support/sse";

const EXECUTABLE = process.env.PLAYWRIGHT_CHROMIUM === "bundled" ? undefined : (process.env.CHROMIUM_PATH ?? "/usr/bin/chromium");
const TABLE = "public.lock_probe";

let own: OwnPg;
let admin: pg.Client;
let server: RunningServer;
let browser: Browser;
let page: Page;

async function target(): Promise<TargetInfo> {
  const res = await fetch(`${server.url}/api/targets`);
  return ((await res.json()) as TargetsResponse).targets[0];
}

const aspect = (t: TargetInfo, name: string) => t.aspects.find((a) => a.aspect === name)!;

async function collectionOk(name: string): Promise<string | null> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return new RegExp(`^inflight_collection_ok\\{[^}]*target="lockpg"[^}]*aspect="${name}"[^}]*\\} (\\d+)$`, "m").exec(text)?.[1] ?? null;
}

/** What inflight's own session waits on right now (null: not waiting). */
async function inflightWaits(): Promise<(string | null)[]> {
  const { rows } = await admin.query<{ w: string | null }>(
    "SELECT wait_event_type AS w FROM pg_stat_activity WHERE application_name = 'inflight'",
  );
  return rows.map((r) => r.w);
}

beforeAll(async () => {
  own = await startOwnPg();
  admin = await connect(own.server.superuserUrl("postgres"), "aspects-admin");
  // ~55 MB: a cold scan reads for a good part of a second.
  await admin.query(`CREATE TABLE ${TABLE} AS SELECT g AS id, repeat(md5(g::text), 8) AS payload FROM generate_series(1, 200000) AS g`);
  await admin.query(`VACUUM ANALYZE ${TABLE}`);
  server = await startServer({
    INFLIGHT_TARGETS: `lockpg=${own.server.monitorUrl("postgres")}`,
    // The lock is what this tests, not the budget (budget.int.test.ts tests that): the samples'
    // cadence is counted below at the 100 ms asked, and on two loaded cores the default 5 ms/s can
    // rightly stretch it (CI once sampled at about a second).
    INFLIGHT_BUDGET: "100",
  });
  await waitFor("up", async () => (await target()).status === "up", 20_000);
  browser = await chromium.launch({ executablePath: EXECUTABLE });
  page = await browser.newPage();
  // The page open: someone watches, so the fast cadence (100 ms) is asked for.
  await page.goto(`${server.url}/targets/lockpg`);
  await waitFor("the page watching", async () => (await target()).viewers > 0, 20_000);
  // What pg_aios costs, from inflight's own pg_stat_statements entry (two reads, seconds apart):
  // until then a round trip stands for it, which on a busy machine is mostly not the server's.
  await waitFor(
    "pg_aios's cost calibrated",
    async () => (await target()).cost.statements.some((s) => s.source === "pg_stat_statements"),
    30_000,
  );
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await admin?.end();
  await own?.dispose();
});

describe("a user's lock", () => {
  it("never holds up inflight: with ACCESS EXCLUSIVE queued on the table being scanned, it names the relation and keeps sampling", async () => {
    const scanner = await connect(own.server.superuserUrl("postgres"), "aspects-scanner");
    const waiter = await connect(own.server.superuserUrl("postgres"), "aspects-waiter");
    await scanner.query("SET max_parallel_workers_per_gather = 0");
    // The scanner's open transaction holds ACCESS SHARE; the waiter's request queues behind it,
    // and anything else that wants a lock on the table would queue behind the waiter.
    await scanner.query("BEGIN");
    await scanner.query(`SELECT 1 FROM ${TABLE} LIMIT 1`);
    const queued = waiter.query(`BEGIN; LOCK TABLE ${TABLE} IN ACCESS EXCLUSIVE MODE`);
    await waitFor("the ACCESS EXCLUSIVE request queued", async () => {
      const { rows } = await admin.query(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = 'aspects-waiter' AND wait_event_type = 'Lock'",
      );
      return rows.length > 0;
    });

    const waits = new Set<string>();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        for (const w of await inflightWaits()) if (w) waits.add(w);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    // The samples as a viewer gets them, and as the server ran them, by the test's clock.
    const viewer = await openSse(`${server.url}/api/targets/lockpg/stream`);
    await viewer.waitFor((e) => e.event === "tick");
    const callsBefore = await ownStatementCalls(admin, "activity");
    const from = Date.now();
    const scanRelations = async () => {
      const window = (await (await fetch(`${server.url}/api/targets/lockpg/window?from=${from}`)).json()) as WindowSnapshot;
      const scans = window.queries.filter((q) => q.query.includes("lock_probe") && q.query.includes("LIKE"));
      return { scans, names: scans.flatMap((q) => q.relations.map((r) => r.name)) };
    };
    try {
      // Cold scans inside the transaction (it already holds its lock), for 6 s at least, and
      // until a pg_aios read has caught one of their handles (on a loaded machine pg_aios is
      // read less often): bounded at 60 s.
      for (let n = 0; n < 3 || Date.now() - from < 6000 || !(await scanRelations()).names.includes(TABLE); n++) {
        if (Date.now() - from > 60_000) break;
        await evictFromPageCache(admin, own.server.dataDir, TABLE);
        await scanner.query(`SELECT count(*) FROM ${TABLE} WHERE payload LIKE '%zz%'`);
      }
    } finally {
      polling = false;
      await poller;
      await scanner.query("COMMIT");
      await queued;
      await waiter.query("COMMIT");
      await scanner.end();
      await waiter.end();
    }
    const to = Date.now();
    const calls = (await ownStatementCalls(admin, "activity")) - callsBefore;
    viewer.close();
    const after = await target();

    // inflight's session waited on I/O or nothing, never on a lock.
    expect([...waits].filter((w) => w === "Lock")).toEqual([]);
    expect(aspect(after, "relations").state).toBe("ok");
    expect(aspect(after, "sampling").state).toBe("ok");
    // The samples went on while the lock was held: three in four of the 100 ms slots, by the
    // ticks that reached the test and by the server's count of the sample's calls (a burst of
    // extra samples when a scan starts adds to the calls). A sample that waited on the lock would
    // hold its slot and those after it until the statement timeout (1.5 s: 15 slots).
    const slots = Math.floor((to - from) / 100);
    const arrived = slotTicksArrived(viewer.events, from, to);
    const why = `${arrived} ticks arrived and ${calls} samples run in ${to - from} ms (${slots} slots)`;
    console.log(`[aspects] the lock held: ${why}`);
    expect(arrived, why).toBeGreaterThanOrEqual(Math.floor(slots * 0.75));
    expect(calls, why).toBeGreaterThanOrEqual(Math.floor(slots * 0.75));
    // The scan's reads were tied to the table by name, through the catalog only.
    const { scans, names } = await scanRelations();
    expect(scans.length).toBeGreaterThan(0);
    expect(names).toContain(TABLE);
  });
});

describe("a collection aspect that fails", () => {
  it("shows as itself on the page, in /api/targets and /metrics, the target still up; and clears", async () => {
    expect(aspect(await target(), "stat_io").state).toBe("ok");
    expect(await collectionOk("stat_io")).toBe("1");
    // pg_monitor does not grant SELECT on the view: with PUBLIC's grant gone, inflight's role is denied.
    await admin.query("REVOKE SELECT ON pg_catalog.pg_stat_io FROM PUBLIC");
    try {
      const failing = await waitFor(
        "stat_io failing",
        async () => {
          const t = await target();
          return aspect(t, "stat_io").state === "failing" ? t : null;
        },
        20_000,
      );
      expect(failing.status).toBe("up");
      expect(aspect(failing, "stat_io").lastError).toMatch(/permission denied for view pg_stat_io/);
      expect(aspect(failing, "sampling").state).toBe("ok");
      expect(aspect(failing, "settings").state).toBe("ok");
      expect(await collectionOk("stat_io")).toBe("0");
      expect(await collectionOk("sampling")).toBe("1");

      const shown = page.getByTestId("aspect-stat_io");
      await shown.waitFor({ timeout: 20_000 });
      expect(await shown.getAttribute("data-state")).toBe("failing");
      expect(await shown.innerText()).toMatch(/pg_stat_io.*permission denied/);
      expect(await page.getByTestId("target-status").innerText()).toMatch(/^up/);
      // The others went on: samples keep coming while pg_stat_io is denied, by the server's count.
      const calls = await ownStatementCalls(admin, "activity");
      await waitFor("samples while pg_stat_io is denied", async () => (await ownStatementCalls(admin, "activity")) > calls + 10, 10_000);
    } finally {
      await admin.query("GRANT SELECT ON pg_catalog.pg_stat_io TO PUBLIC");
    }
    await waitFor("stat_io ok again", async () => aspect(await target(), "stat_io").state === "ok", 30_000);
    expect(aspect(await target(), "stat_io").lastError).toBeNull();
    expect(await collectionOk("stat_io")).toBe("1");
    await page.getByTestId("aspect-stat_io").waitFor({ state: "detached", timeout: 20_000 });
  });
});
