// Size: one PostgreSQL of its own serves every fault in turn (each stops, kills or slows it); a second file would start another.
// Faults of the target, made for real against a PostgreSQL 18 of this
// file's own: down at start, stopped (fast and immediate) and back, its
// session killed, slow answers through a delaying proxy, a statement that
// keeps failing. The collector runs in this process.
import net from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDelayProxy } from "../../../test/support/delay-proxy";
import { startOwnPg, viaPort, type OwnPg } from "../../../test/support/own-pg";
import { connect, loopLag, ownStatementCalls, waitFor, TEST_COLLECTOR } from "../../../test/support/pg";
import { freePort } from "../../../test/support/server";
import { Collector } from "./collector";
import { RETRY_MS } from "./connection";

interface Watched {
  c: Collector;
  lines: string[];
  stop(): Promise<void>;
}

/** A collector with one viewer, so it samples at the fast cadence. */
function watch(url: string, sampleMs = 50): Watched {
  const lines: string[] = [];
  const c = new Collector({
    id: "f",
    name: "f",
    demo: false,
    watchedSampleMs: sampleMs,
    idleSampleMs: 1000,
    windowMs: 10 * 60_000,
    ...TEST_COLLECTOR,
    log: (l) => lines.push(l),
  });
  const unsubscribe = c.feed.subscribe(() => undefined);
  c.start(url);
  return {
    c,
    lines,
    async stop() {
      unsubscribe();
      await c.stop();
    },
  };
}

const up = (w: Watched) => w.c.info().status === "up" && w.c.window.allTicks().length > 2;

async function inflightBackends(admin: pg.Client): Promise<{ pid: number; state: string | null }[]> {
  const { rows } = await admin.query<{ pid: number; state: string | null }>(
    "SELECT pid, state FROM pg_stat_activity WHERE application_name = 'inflight'",
  );
  return rows;
}

function heapAfterGc(): number {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

let own: OwnPg;
let admin: pg.Client;

beforeAll(async () => {
  own = await startOwnPg();
});
afterAll(async () => {
  await admin?.end().catch(() => undefined);
  await own?.dispose();
});

async function adminConnect(): Promise<pg.Client> {
  await admin?.end().catch(() => undefined);
  admin = await connect(own.server.superuserUrl("postgres"), "fault-admin");
  return admin;
}

describe("a target that is down or goes away", () => {
  it("down at start: listed as down with its error and since when, then up within 2 s of accepting connections", async () => {
    await own.server.stop("fast");
    const before = Date.now();
    const w = watch(own.server.monitorUrl("postgres"));
    try {
      const down = await waitFor("down", () => (w.c.info().status === "down" ? w.c.info() : null), 5000);
      expect(down.lastError).toMatch(/ECONNREFUSED/);
      expect(down.statusSince).toBeGreaterThanOrEqual(before);
      expect(down.statusSince).toBeLessThanOrEqual(Date.now());
      // It stays down, with the same "since", while attempts go on; by 6 s a
      // plain backoff waits 3 s between attempts, so only watching the port
      // can bring it up within 2 s of the start.
      await new Promise((r) => setTimeout(r, 6000));
      expect(w.c.info()).toMatchObject({ status: "down", statusSince: down.statusSince, samples: 0 });
      expect(w.lines.filter((l) => l.includes("is down"))).toHaveLength(1);

      await own.server.start();
      const [accepting, lag] = [Date.now(), loopLag()];
      await waitFor("up after the start", () => w.c.info().status === "up", 5000, 10);
      expect(Date.now() - accepting).toBeLessThan(2000 + lag());
      await waitFor("ticks", () => w.c.window.allTicks().length > 2);
    } finally {
      await w.stop();
    }
  });

  it("backs off between attempts at a server that answers but fails, as RETRY_MS says", async () => {
    const attempts: number[] = [];
    const listener = net.createServer((socket) => {
      attempts.push(Date.now());
      socket.destroy();
    });
    const port = await freePort();
    await new Promise<void>((r) => listener.listen(port, "127.0.0.1", r));
    const [w, lag] = [watch(`postgres://nobody:Backoff-Secret-1@127.0.0.1:${port}/postgres`), loopLag()];
    try {
      await waitFor("7 attempts", () => attempts.length >= 7, 8000, 20);
      const gaps = attempts.slice(1, 7).map((t, i) => t - attempts[i]);
      gaps.forEach((gap, i) => {
        expect(gap).toBeGreaterThanOrEqual(RETRY_MS[i] - 20);
        expect(gap).toBeLessThan(RETRY_MS[i] + 250 + lag());
      });
      expect(w.c.info().status).toBe("down");
      expect(w.c.info().lastError).toMatch(/Connection terminated/);
      // One log line for a failure that repeats, and never the password.
      expect(w.lines.filter((l) => l.includes("is down"))).toHaveLength(1);
      expect(w.lines.join("\n")).not.toContain("Backoff-Secret-1");
    } finally {
      await w.stop();
      await new Promise((r) => listener.close(r));
    }
    // The schedule's cap: never more than 5 s between attempts.
    expect(Math.max(...RETRY_MS)).toBe(5000);
  });

  it.each(["fast", "immediate"] as const)(
    "pg_ctl stop -m %s and start: reconnects within 2 s, keeps the window, records the gap and the restart",
    async (mode) => {
      const w = watch(own.server.monitorUrl("postgres"));
      try {
        await waitFor("up", () => up(w), 10_000);
        const firstSeq = w.c.window.allTicks()[0].seq;
        const restartsBefore = w.c.window.restarts.length;
        const stoppedAt = Date.now();
        await own.server.stop(mode);
        await waitFor("down", () => w.c.info().status === "down", 5000, 10);
        const lastBefore = w.c.window.lastTick()!;
        // Long enough that a plain backoff would be at 2-3 s between attempts.
        await new Promise((r) => setTimeout(r, 3500));
        expect(w.c.info().status).toBe("down");

        const starting = Date.now();
        await own.server.start();
        const accepting = Date.now();
        await waitFor("up again", () => w.c.info().status === "up", 5000, 10);
        expect(Date.now() - accepting).toBeLessThan(2000);
        await waitFor("ticks after the restart", () => w.c.window.lastTick()!.seq > lastBefore.seq + 2);

        // The window is kept: the ticks from before the outage are still there.
        expect(w.c.window.allTicks()[0].seq).toBe(firstSeq);
        // The outage: a gap with both ends, no tick inside, ended after the start began (the collector may connect first).
        const outage = w.c.window.outages.at(-1)!;
        expect(outage.from).toBeGreaterThanOrEqual(stoppedAt);
        expect(outage.to!).toBeGreaterThanOrEqual(starting);
        expect(w.c.window.allTicks().filter((t) => t.t > outage.from && t.t < outage.to!)).toEqual([]);
        // The restart is recorded: a new postmaster start time.
        await waitFor("restart recorded", () => w.c.window.restarts.length === restartsBefore + 1);
        expect(w.c.window.restarts.at(-1)!.at).toBeGreaterThan(stoppedAt);
      } finally {
        await w.stop();
      }
    },
  );

  it("its session killed (pg_terminate_backend): a new session within 1 s, the ticks in between counted as missed", async () => {
    const w = watch(own.server.monitorUrl("postgres"), 20);
    const db = await adminConnect();
    try {
      await waitFor("up", () => up(w), 10_000);
      const [victim] = await inflightBackends(db);
      const slotsBefore = w.c.stats.samples + w.c.stats.missed;
      const missedBefore = w.c.stats.missed;
      const [from, lag] = [Date.now(), loopLag()];
      await db.query("SELECT pg_terminate_backend($1)", [victim.pid]);
      const replaced = await waitFor(
        "a new inflight session, sampling",
        async () => {
          const rows = await inflightBackends(db);
          return rows.length === 1 && rows[0].pid !== victim.pid && w.c.info().status === "up" ? rows[0] : null;
        },
        3000,
        10,
      );
      expect(Date.now() - from).toBeLessThan(1000 + lag());
      expect(replaced.pid).not.toBe(victim.pid);
      await new Promise((r) => setTimeout(r, 500));
      const elapsed = Date.now() - from;
      // Every due tick is a sample or a miss: none vanishes in the gap, and
      // the ticks due while there was no session are the misses. (A
      // reconnect quicker than one interval misses none.)
      const outage = w.c.window.outages.at(-1)!;
      expect(outage.to).not.toBeNull();
      expect(w.c.stats.missed - missedBefore).toBeGreaterThanOrEqual(Math.floor((outage.to! - outage.from) / 20) - 1);
      expect(w.c.stats.samples + w.c.stats.missed - slotsBefore).toBeGreaterThanOrEqual(Math.floor(elapsed / 20) - 3);
      expect(w.c.stats.samples + w.c.stats.missed - slotsBefore).toBeLessThanOrEqual(Math.ceil(elapsed / 20) + 2);
      expect(w.c.window.outages.at(-1)!.to).not.toBeNull();
    } finally {
      await w.stop();
    }
  });
});

describe("a slow target (answers held back by a proxy)", () => {
  it("counts slow and timed-out ticks as missed, never runs two statements at once, and keeps memory flat", async () => {
    const db = await adminConnect();
    const proxy = await startDelayProxy({ host: "127.0.0.1", port: own.server.port });
    const w = watch(viaPort(own.server.monitorUrl("postgres"), proxy.port), 100);
    let polling = true;
    let maxActive = 0;
    let maxSessions = 0;
    // Watch the target itself: inflight's sessions and how many are active.
    const poller = (async () => {
      while (polling) {
        const rows = await inflightBackends(db);
        maxSessions = Math.max(maxSessions, rows.length);
        maxActive = Math.max(maxActive, rows.filter((r) => r.state === "active").length);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      await waitFor("up through the proxy", () => up(w), 10_000);

      // Slow answers (350 ms): ticks are missed, the session stays up.
      proxy.setDelay(350);
      await new Promise((r) => setTimeout(r, 500));
      const heapBefore = heapAfterGc();
      const all = (key: "calls" | "ms") => [...w.c.stats.statements.values()].reduce((n, st) => n + st[key], 0);
      // Taken as a statement ends, so that the round trips counted between two span the time between them.
      const snapshot = async () => {
        const n = all("calls");
        await waitFor("a statement to end", () => all("calls") > n, 5000, 2);
        return {
          samples: w.c.stats.samples,
          missed: w.c.stats.missed,
          all: all("calls"),
          ms: all("ms"),
          at: Date.now(),
          calls: await ownStatementCalls(db, "activity"),
        };
      };
      const [s0, loop] = [await snapshot(), monitorEventLoopDelay({ resolution: 10 })];
      loop.enable();
      await new Promise((r) => setTimeout(r, 3000));
      const s1 = await snapshot();
      loop.disable();
      expect(w.c.info().status).toBe("up");
      expect(proxy.connections).toBe(1);
      const [samples, missed, span] = [s1.samples - s0.samples, s1.missed - s0.missed, s1.at - s0.at];
      // Bounds from the proxy's delay and the schedule, not from this machine's speed (it only makes
      // round trips longer): one statement at a time, each held 350 ms, a tick beginning with its sample;
      expect(s1.all - s0.all).toBeLessThanOrEqual(Math.ceil(span / 350) + 1);
      expect(samples).toBeLessThanOrEqual(Math.ceil(span / 350) + 1);
      // the slot due in a tick runs as it ends (or one interval later): waiting on the target all but an interval a
      // tick and this process's own delay at each statement; each slot sampled or missed, a tick spanning 3 or more.
      expect(span - (s1.ms - s0.ms)).toBeLessThanOrEqual((samples + 2) * 100 + (s1.all - s0.all) * (loop.max / 1e6));
      expect(samples + missed).toBeGreaterThanOrEqual(Math.floor(span / 100) - 2);
      expect(missed).toBeGreaterThan(samples);
      // One statement per sample reached the server: no queue of statements behind the slow one.
      expect(Math.abs(s1.calls - s0.calls - samples)).toBeLessThanOrEqual(1);
      expect(heapAfterGc() - heapBefore).toBeLessThan(8 * 1024 * 1024);

      // No answer within the limit (1 s + 0.5 s): the tick times out, is
      // missed, and the connection is replaced.
      const missedBefore = w.c.stats.missed;
      proxy.setDelay(2500);
      const down = await waitFor("down on a timeout", () => (w.c.info().status === "down" ? w.c.info() : null), 8000, 20);
      expect(down.lastError).toMatch(/no answer from the target to [a-z_0-9]+\.sql within 1500 ms/);
      expect(w.c.stats.missed).toBeGreaterThan(missedBefore);
      expect(w.lines.some((l) => l.includes("no answer from the target"))).toBe(true);

      proxy.setDelay(0);
      await waitFor("up again once answers are quick", () => w.c.info().status === "up", 12_000, 20);
    } finally {
      polling = false;
      await poller;
      await w.stop();
      await proxy.close();
    }
    expect(maxActive).toBeLessThanOrEqual(1);
    // A replaced session may linger a moment beside the new one, never more.
    expect(maxSessions).toBeLessThanOrEqual(2);
  });
});

describe("a statement that keeps failing", () => {
  it("is logged once; the session is kept, not reconnected in a loop", async () => {
    const db = await adminConnect();
    // pg_monitor does not grant SELECT on the view: with PUBLIC's grant gone, it is denied.
    await db.query("REVOKE SELECT ON pg_catalog.pg_stat_io FROM PUBLIC");
    const w = watch(own.server.monitorUrl("postgres"));
    try {
      await waitFor("up", () => up(w), 10_000);
      const [session] = await inflightBackends(db);
      await new Promise((r) => setTimeout(r, 3500));
      const denied = w.lines.filter((l) => /permission denied for view pg_stat_io/.test(l));
      expect(denied).toHaveLength(1);
      expect(await inflightBackends(db)).toEqual([expect.objectContaining({ pid: session.pid })]);
      expect(w.c.info().status).toBe("up");
      expect(w.c.window.outages).toEqual([]);
      expect(w.c.window.allTicks().length).toBeGreaterThan(30);
    } finally {
      await w.stop();
      await db.query("GRANT SELECT ON pg_catalog.pg_stat_io TO PUBLIC");
    }
  });
});
