// Issue 22: the history is written off the tick's path. While the
// built server samples the run's PostgreSQL 18 at the fast cadence (a
// viewer), another connection holds its samples file locked (BEGIN
// EXCLUSIVE) across two of the store's flushes: ticks keep arriving, the
// event loop is never held for the lock, /history still answers (WAL),
// nothing is dropped or said to fail, and every second the stream had a
// tick in while the lock was held is on disk once it is released (the
// writer, a worker_thread, waits up to LOCK_WAIT_MS for it, far longer).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TargetsResponse } from "../lib/schemas/api";
import { HistoryResponse } from "../lib/schemas/history";
import { Tick } from "../lib/schemas/tick";
import { FLUSH_EVERY_MS, LOCK_WAIT_MS } from "../lib/server/history/samples";
import { samplesFile } from "../lib/server/history/samples-db.mjs";
import { testPg, waitFor } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";
import { openSse, type SseClient } from "./support/sse";

const PG = testPg();

const getJson = async (app: RunningServer, p: string) => (await fetch(`${app.url}${p}`)).json();
const history = async (app: RunningServer, from: number, to: number) =>
  HistoryResponse.parse(await getJson(app, `/api/targets/pg/history?from=${from}&to=${to}`));
/** A sample's value on /metrics (the first series of the name). */
const metric = (text: string, name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1]);
/** Scraping resets prom-client's event-loop delay histogram: the next scrape's max is the longest delay since this one. */
const scrape = async (app: RunningServer) => (await fetch(`${app.url}/metrics`)).text();
const ticksOf = (sse: SseClient) => sse.events.filter((e) => e.event === "tick").map((e) => Tick.parse(JSON.parse(e.data)).t);

describe("a locked samples file (the real server)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-past-lock-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("holds the writer, never sampling: ticks go on, the loop is not held, nothing is dropped, and the lock's seconds are on disk after it", async () => {
    const file = path.join(dir, "history.db");
    const app = await startServer({ INFLIGHT_TARGETS: `pg=${PG.monitorUrl}`, INFLIGHT_HISTORY_FILE: file, INFLIGHT_SAMPLE_MS: "50" });
    const sse = await openSse(`${app.url}/api/targets/pg/stream`);
    try {
      const started = Date.now();
      // A first batch on disk: the lock falls on a file the writer already has open.
      await waitFor("a first batch on disk", async () => (await history(app, started - 60_000, Date.now())).ticks.length > 0, 30_000, 250);
      await scrape(app);

      const lock = new Database(samplesFile(file));
      lock.exec("BEGIN EXCLUSIVE");
      const lockedAt = Date.now();
      const before = ticksOf(sse).length;
      let releasedAt: number;
      let underLock: { lagMaxMs: number; dropped: number; historyStatus: number; history: unknown };
      try {
        // Held across two of the store's flushes, and until ticks have kept arriving under it.
        await waitFor(
          "two flushes under the lock, ticks arriving",
          () => Date.now() - lockedAt > 2 * FLUSH_EVERY_MS + 1000 && ticksOf(sse).length - before >= 20,
          60_000,
          200,
        );
        const metrics = await scrape(app);
        const res = await fetch(`${app.url}/api/targets/pg/history?from=${started - 60_000}&to=${Date.now()}`);
        await res.body?.cancel();
        const target = TargetsResponse.parse(await getJson(app, "/api/targets")).targets[0];
        underLock = {
          lagMaxMs: metric(metrics, "nodejs_eventloop_lag_max_seconds") * 1000,
          dropped: metric(metrics, "inflight_history_rows_dropped_total"),
          historyStatus: res.status,
          history: target.history,
        };
      } finally {
        lock.exec("COMMIT");
        lock.close();
        releasedAt = Date.now();
      }
      const heldMs = releasedAt - lockedAt;
      expect(heldMs).toBeLessThan(LOCK_WAIT_MS);
      expect(underLock.historyStatus).toBe(200);
      expect(underLock.history).toEqual({ on: true, reason: null, dropped: 0 });
      expect(underLock.dropped).toBe(0);
      // A loop that waited for the lock would have been held for most of it.
      expect(underLock.lagMaxMs).toBeLessThan(heldMs / 2);

      // Every second the stream had a tick in under the lock is on disk once the lock is gone.
      const seconds = [
        ...new Set(
          ticksOf(sse)
            .filter((t) => t >= lockedAt && t < releasedAt)
            .map((t) => Math.floor(t / 1000)),
        ),
      ];
      expect(seconds.length).toBeGreaterThan(2);
      const missing = async () => {
        const onDisk = new Set((await history(app, lockedAt - 1000, releasedAt + 1000)).ticks.map((t) => Math.floor(t.t / 1000)));
        return seconds.filter((s) => !onDisk.has(s));
      };
      await expect.poll(missing, { timeout: 3 * FLUSH_EVERY_MS, interval: 250 }).toEqual([]);
      const after = TargetsResponse.parse(await getJson(app, "/api/targets")).targets[0];
      expect(after.history).toEqual({ on: true, reason: null, dropped: 0 });
      expect(app.output()).not.toContain("samples not kept");
    } finally {
      sse.close();
      await app.stop();
    }
  });
});
