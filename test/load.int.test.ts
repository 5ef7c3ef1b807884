// 100 concurrent SSE viewers of one target, then 1,000 connect/disconnect
// cycles, against the real server and a PostgreSQL 18 of this file's own
// (its pg_stat_statements counts only this server's statements). The
// viewers come from 127.0.1.x addresses, 20 from each at most: the
// per-client cap (INFLIGHT_MAX_STREAMS_PER_CLIENT) is not what this tests.
import http from "node:http";
import { readFileSync } from "node:fs";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TargetInfo } from "../lib/schemas/target";
import type { TargetsResponse } from "../lib/schemas/api";
import { startOwnPg, type OwnPg } from "./support/own-pg";
import { connect, ownStatementCalls, waitFor } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";
import { openSse, slotTicksArrived, type SseClient } from "./support/sse";

let own: OwnPg;
let server: RunningServer;
let admin: pg.Client;

async function target(): Promise<TargetInfo> {
  const body = (await (await fetch(`${server.url}/api/targets`)).json()) as TargetsResponse;
  return body.targets[0];
}

async function inflightSessions(): Promise<number> {
  const { rows } = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'inflight'");
  return rows[0].n;
}

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
  return kb / 1024;
}

/** inflight's wait-event sample: the server's count of its calls over `ms`, and the product's count of its samples, read as close together as possible. */
async function oneStatementPerTick(ms: number): Promise<{ calls: number; samples: number }> {
  const c0 = await ownStatementCalls(admin, "activity");
  const s0 = (await target()).samples;
  await new Promise((r) => setTimeout(r, ms));
  const c1 = await ownStatementCalls(admin, "activity");
  const s1 = (await target()).samples;
  return { calls: c1 - c0, samples: s1 - s0 };
}

/** Over `ms` by the test's clock: the server's count of the sample's calls, and the ticks (all, and those in their slots) that reached `viewer`. */
async function callsAndTicks(viewer: SseClient, ms: number): Promise<{ calls: number; ticks: number; slotTicks: number; ms: number }> {
  const c0 = await ownStatementCalls(admin, "activity");
  const from = Date.now();
  await new Promise((r) => setTimeout(r, ms));
  const c1 = await ownStatementCalls(admin, "activity");
  const to = Date.now();
  const ticks = viewer.events.filter((e) => e.event === "tick" && e.at >= from && e.at < to).length;
  return { calls: c1 - c0, ticks, slotTicks: slotTicksArrived(viewer.events, from, to), ms: to - from };
}

const from = (i: number) => `127.0.1.${i + 1}`;

/** Opens a stream from `localAddress`, waits for its first bytes, and drops the socket. */
function cycle(url: string, localAddress: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, localAddress }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`stream refused: ${res.statusCode}`));
      res.once("data", () => {
        req.destroy();
        resolve();
      });
    });
    req.on("error", (err) => ((err as NodeJS.ErrnoException).code === "ECONNRESET" ? resolve() : reject(err)));
    req.setTimeout(10_000, () => req.destroy(new Error("no first chunk in 10 s")));
  });
}

beforeAll(async () => {
  own = await startOwnPg();
  admin = await connect(own.server.superuserUrl("postgres"), "load-admin");
  server = await startServer({
    DATABASE_URL: own.server.monitorUrl("postgres"),
    INFLIGHT_LOG: "0",
    // What the viewers cost is what this tests, not the budget (budget.int.test.ts tests that): on
    // two loaded cores a sample can cost more than the default 5 ms/s affords at 10 a second, and
    // the budget would rightly stretch the cadence this counts.
    INFLIGHT_BUDGET: "100",
  });
  await waitFor("target up", async () => (await target()).status === "up", 20_000);
});
afterAll(async () => {
  await server?.stop();
  await admin?.end();
  await own?.dispose();
});

describe("viewers at scale", () => {
  it("100 concurrent viewers, then 1,000 connect/disconnect cycles: viewers back to 0, one sampling statement per tick", async () => {
    const stream = `${server.url}/api/targets/${(await target()).id}/stream`;
    const rssStart = rssMb(server.pid);

    const viewers: SseClient[] = await Promise.all(Array.from({ length: 100 }, (_, i) => openSse(stream, {}, from(i % 5))));
    try {
      await Promise.all(viewers.map((v) => v.waitFor((e) => e.event === "tick", 20_000)));
      expect((await target()).viewers).toBe(100);
      expect((await target()).sampleMs).toBe(100);
      // The target's load does not grow with viewers: one session, one statement per tick. Both
      // counted outside the product: the server's calls, and the ticks one viewer received, over
      // 2 s of the test's clock (10 a second asked: 20; the idle cadence would give 2).
      const busy = await callsAndTicks(viewers[0], 2000);
      console.log(`[load] 100 viewers, 2 s: ${JSON.stringify(busy)}`);
      expect(busy.slotTicks, JSON.stringify(busy)).toBeGreaterThan(10);
      expect(Math.abs(busy.calls - busy.ticks), JSON.stringify(busy)).toBeLessThanOrEqual(2);
      expect(await inflightSessions()).toBe(1);
      // Every viewer got the same ticks.
      const lastSeq = (v: SseClient) => Number(v.events.filter((e) => e.event === "tick").at(-1)!.id);
      const newest = Math.max(...viewers.map(lastSeq));
      await Promise.all(viewers.map((v) => v.waitFor((e) => e.event === "tick" && Number(e.id) >= newest, 5000)));
    } finally {
      for (const v of viewers) v.close();
    }
    await waitFor("viewers back to 0", async () => (await target()).viewers === 0, 10_000);

    const started = Date.now();
    let done = 0;
    const worker = async (w: number) => {
      while (done < 1000 && Date.now() - started < 90_000) {
        done++;
        await cycle(stream, from(w));
      }
    };
    await Promise.all(Array.from({ length: 20 }, (_, w) => worker(w)));
    expect(done).toBe(1000);
    console.log(`[load] 1000 connect/disconnect cycles in ${Date.now() - started} ms`);
    await waitFor("viewers back to 0 after the cycles", async () => (await target()).viewers === 0, 10_000);

    // With no viewer the cadence drops to idle (one a second: 2 or 3 calls in 2.5 s, by the
    // server's count); still one statement per sample the product counts.
    const idle = await oneStatementPerTick(2500);
    expect(idle.calls, JSON.stringify(idle)).toBeLessThanOrEqual(4);
    expect(Math.abs(idle.calls - idle.samples)).toBeLessThanOrEqual(1);
    expect((await target()).sampleMs).toBe(1000);
    expect(await inflightSessions()).toBe(1);
    expect(server.output()).not.toMatch(/MaxListenersExceededWarning|memory leak/i);
    expect(rssMb(server.pid) - rssStart).toBeLessThan(150);
  });
});
