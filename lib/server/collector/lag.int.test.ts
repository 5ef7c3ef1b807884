// This process's own event loop held up is never read as the target's
// silence: with answers slowed by a proxy (a statement is in flight almost
// all the time), the loop is blocked for longer than a statement's whole
// limit (1 s + 0.5 s), again and again; the answers wait in the socket
// meanwhile. The target must stay up on the same connection, with no
// "no answer" anywhere. Against the run's PostgreSQL 18.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDelayProxy, type DelayProxy } from "../../../test/support/delay-proxy";
import { viaPort } from "../../../test/support/own-pg";
import { testPg, waitFor, TEST_COLLECTOR } from "../../../test/support/pg";
import { LoopLag } from "../runtime/loop-lag";
import { Collector } from "./collector";

let proxy: DelayProxy;
const loopLag = new LoopLag();

beforeAll(async () => {
  const pg = testPg();
  proxy = await startDelayProxy({ host: "127.0.0.1", port: pg.port });
  loopLag.start();
});
afterAll(async () => {
  loopLag.stop();
  await proxy?.close();
});

/** Holds this process's event loop, as a burst of synchronous work would. */
function block(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

describe("the statement guard under our own lag", () => {
  it("a loop held up for 1.6 and 2.5 s, statements in flight: the target stays up, same session", async () => {
    const lines: string[] = [];
    const c = new Collector({
      id: "lag",
      name: "lag",
      demo: false,
      watchedSampleMs: 100,
      idleSampleMs: 1000,
      windowMs: 60_000,
      ...TEST_COLLECTOR,
      loopLag,
      log: (l) => lines.push(l),
    });
    const unsubscribe = c.feed.subscribe(() => undefined);
    c.start(viaPort(testPg().monitorUrl, proxy.port));
    try {
      await waitFor("up", () => c.info().status === "up" && c.stats.samples > 3, 10_000);
      const since = c.info().statusSince;
      proxy.setDelay(200);
      for (const ms of [1600, 2500]) {
        await new Promise((r) => setTimeout(r, 120 + Math.random() * 150));
        block(ms);
        await new Promise((r) => setTimeout(r, 400));
      }
      proxy.setDelay(0);
      const samples = c.stats.samples;
      await waitFor("sampling on", () => c.stats.samples > samples + 5, 5000);
      expect(c.info()).toMatchObject({ status: "up", statusSince: since, lastError: null });
      expect(proxy.connections).toBe(1);
      expect(lines.filter((l) => /no answer|is down/.test(l))).toEqual([]);
      expect(c.window.outages).toEqual([]);
    } finally {
      unsubscribe();
      await c.stop();
    }
  });
});
