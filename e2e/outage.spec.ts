import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { demoCluster, openTarget, startInflightOn, stopInflight } from "./helpers";

// A target going down and coming back, in the browser: an inflight of its
// own reaches the demo's cluster through a TCP relay this spec can close.
// While it is closed, the page says the target is down with the real cause
// (the connection refused at the relay's port), the stream from inflight
// stays live, and nothing is sampled; once it listens again, sampling
// resumes and the charts show the gap, by this test's own clock.

/** A loopback relay to `port` that can refuse connections (down) and take them again on the same port (up). */
async function relay(port: number) {
  const sockets = new Set<net.Socket>();
  const make = () =>
    net.createServer((client) => {
      const upstream = net.connect({ host: "127.0.0.1", port });
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on("error", end).on("close", end);
      upstream.on("error", end).on("close", end);
    });
  let server = make();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const own = (server.address() as net.AddressInfo).port;
  return {
    port: own,
    async down() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    async up() {
      server = make();
      await new Promise<void>((r) => server.listen(own, "127.0.0.1", r));
    },
    close: () => new Promise<void>((r) => (server.listening ? server.close(() => r()) : r())),
  };
}

let inflight: { base: string; server: ChildProcess } | null = null;
let proxy: Awaited<ReturnType<typeof relay>> | null = null;
let dir = "";

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const cluster = demoCluster();
  proxy = await relay(cluster.port);
  dir = mkdtempSync(path.join(os.tmpdir(), "inflight-outage-"));
  const url = `postgres://postgres:${encodeURIComponent(cluster.superuserPassword)}@127.0.0.1:${proxy.port}/inflight_demo`;
  inflight = await startInflightOn(url, { INFLIGHT_HISTORY_FILE: path.join(dir, "history.db") });
});

test.afterAll(async () => {
  if (inflight) await stopInflight(inflight.server);
  await proxy?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a target that goes down is shown down with its cause while the stream stays live; once it is back, sampling resumes and the gap is drawn", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const { base } = inflight!;
  const id = "127.0.0.1";
  const ticksOf = async () =>
    (await (await request.get(`${base}/api/targets/${id}/window?from=0`)).json()) as {
      ticks: { t: number }[];
      outages: { from: number; to: number | null; error: string }[];
    };
  await openTarget(page, `${base}/targets/${id}`);

  const cutAt = Date.now();
  await proxy!.down();
  await expect(page.getByTestId("target-status")).toHaveAttribute("data-status", "down", { timeout: 30_000 });
  // The real cause: the connection refused at the address inflight was given.
  await expect(page.getByTestId("target-error")).toContainText(
    new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${proxy!.port}|connection refused`, "i"),
  );
  // inflight is still there: the page's own stream from it stays live.
  await expect(page.getByTestId("stream-state")).toHaveAttribute("data-state", "live");
  // Down for a few seconds of this test's clock, nothing sampled meanwhile.
  await expect.poll(() => Date.now() - cutAt, { timeout: 10_000 }).toBeGreaterThan(4000);
  const upAt = Date.now();
  await proxy!.up();

  await expect(page.getByTestId("target-status")).toHaveAttribute("data-status", "up", { timeout: 60_000 });
  await expect(page.getByTestId("target-error")).toHaveCount(0);
  // Sampling resumed: samples taken after the relay listened again.
  await expect.poll(async () => (await ticksOf()).ticks.filter((t) => t.t > upAt).length, { timeout: 30_000 }).toBeGreaterThan(5);
  const { ticks, outages } = await ticksOf();
  // None while the relay refused: from a second after the cut (a sample under way) to its return.
  expect(ticks.filter((t) => t.t > cutAt + 1000 && t.t < upAt)).toEqual([]);
  // The gap, as the window keeps it: opened after the cut, closed after the return, with the cause.
  const gap = outages.find((o) => o.from >= cutAt - 1000 && o.from <= upAt);
  expect(gap, JSON.stringify(outages)).toBeDefined();
  expect(gap!.to).not.toBeNull();
  expect(gap!.to!).toBeGreaterThanOrEqual(upAt);
  // Its cause: the sessions cut at the relay (closed, or reset where the relay's socket held bytes not yet
  // read: which one is the moment's), or the connection it then refused.
  expect(gap!.error).toMatch(/Connection terminated unexpectedly|ECONNRESET|ECONNREFUSED|connection refused/i);
  // And drawn: the in-flight chart shades it.
  const chart = page.getByTestId("inflight-chart");
  await chart.scrollIntoViewIfNeeded();
  await expect(chart.getByTestId("outage-mark").first()).toBeAttached({ timeout: 30_000 });
});
