// A crowd (issue 15): 1,000 SSE streams against the real built server
// watching the run's PostgreSQL 18 during cold sequential scans, with the
// default caps (200 in all, 20 per client address). 250 loops, 10 per
// client address, starting over RAMP_MS, open a stream, hold it for about
// HOLD_MS and close it, or wait about RETRY_MS when it is refused, until
// 1,000 have been opened and closed: about 200 are open at any time, the
// rest refused. (Times vary by +-25%: viewers do not arrive in lockstep.)
// Throughout, /api/health is timed, and the target must never be marked
// down nor sampling fall under 99% of its slots, counted by the ticks a
// viewer of the test's own receives on the test's clock. A baseline with that
// viewer alone comes first, in the same run, for the figures in BENCHMARKS.md.
import http from "node:http";
import { readFileSync } from "node:fs";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScanDriver } from "../bench/lib/scans";
import type { TargetsResponse } from "../lib/schemas/api";
import type { TargetInfo } from "../lib/schemas/target";
import { testPg, waitFor } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";
import { openSse, slotTicksArrived, type SseClient } from "./support/sse";

const PG = testPg();
/** CROWD_LOOPS=1000: BENCHMARKS.md's larger crowd (1,000 loops, 800 of them refused at any time). */
const LOOPS = Number(process.env.CROWD_LOOPS ?? 250);
const ADDRESSES = Array.from({ length: Math.ceil(LOOPS / 10) }, (_, i) => `127.0.${10 + Math.floor(i / 250)}.${(i % 250) + 1}`);
const OPENS = 1000;
const HOLD_MS = 4000;
/** As the page does after a refused stream (lib/client/stream.ts retryMs). */
const RETRY_MS = 2000;
const RAMP_MS = 2000;
const jitter = (ms: number) => ms * (0.75 + Math.random() / 2);
const BASELINE_MS = 5000;
/** The interval asked for while someone watches (the shipped default). */
const SAMPLE_MS = 100;

let server: RunningServer;
let scans: ScanDriver;

async function target(): Promise<TargetInfo> {
  return ((await (await fetch(`${server.url}/api/targets`)).json()) as TargetsResponse).targets[0];
}

/** The server's event-loop delay since the last scrape (prom-client resets it at each): p99 and max, ms. */
async function loopLag(): Promise<{ p99: number; max: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const read = (name: string) => Math.round(Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1]) * 1000);
  return { p99: read("nodejs_eventloop_lag_p99_seconds"), max: read("nodejs_eventloop_lag_max_seconds") };
}

/** The 100 ms slots in [from, to) on the test's clock, and the ticks in their slots that reached `viewer` meanwhile. */
function sampledBy(viewer: SseClient, from: number, to: number): { slots: number; arrived: number } {
  return { slots: Math.floor((to - from) / SAMPLE_MS), arrived: slotTicksArrived(viewer.events, from, to) };
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
/** How long the kernel kept `pid`'s main thread (the event loop) waiting for a CPU, ms (schedstat's run-queue wait). */
const runQueueMs = (pid: number) => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[1]) / 1e6;
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

/** Times /api/health ten times a second, and watches the target's state and viewers, until stopped. */
function probe() {
  const health: number[] = [];
  const states = new Set<string>();
  const since = new Set<number>();
  let maxViewers = 0;
  let stopped = false;
  const loops = [
    (async () => {
      while (!stopped) {
        const t0 = performance.now();
        const res = await fetch(`${server.url}/api/health`);
        await res.arrayBuffer();
        health.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 100));
      }
    })(),
    (async () => {
      while (!stopped) {
        const t = await target();
        states.add(t.status);
        since.add(t.statusSince);
        maxViewers = Math.max(maxViewers, t.viewers);
        await new Promise((r) => setTimeout(r, 250));
      }
    })(),
  ];
  return { health, states, since, maxViewers: () => maxViewers, stop: async () => ((stopped = true), await Promise.all(loops)) };
}

interface Opened {
  status: number;
  retryAfter: string | undefined;
  code: string | null;
  /** a tick event came (200 only) */
  ticked: boolean;
  close(): void;
}

/** Opens one stream from `from`; a refusal's body is read whole, a 200 is kept open (has a tick come?). */
function open(url: string, from: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, localAddress: from }, (res) => {
      const out: Opened = {
        status: res.statusCode ?? 0,
        retryAfter: res.headers["retry-after"] as string | undefined,
        code: null,
        ticked: false,
        close: () => req.destroy(),
      };
      if (out.status !== 200) {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ ...out, code: (JSON.parse(body) as { error: { code: string } }).error.code }));
        return;
      }
      // Looked for until the first one: a held stream gets ~40, so one split across two reads does not matter.
      res.on("data", (c: Buffer) => {
        if (!out.ticked) out.ticked = c.includes("event: tick\n");
      });
      res.on("error", () => undefined);
      resolve(out);
    });
    req.on("error", (err) => ((err as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(err)));
    req.setTimeout(20_000, () => req.destroy(new Error("no answer in 20 s")));
  });
}

beforeAll(async () => {
  server = await startServer({ INFLIGHT_TARGETS: `pg=${PG.monitorUrl}`, INFLIGHT_LOG: "0" });
  await waitFor("target up", async () => (await target()).status === "up", 20_000);
  scans = new ScanDriver(PG.superuserUrl, PG.dataDir, [PG.table], "crowd", [100, 300]);
  await scans.open();
  void scans.start();
});
afterAll(async () => {
  await scans?.close();
  await server?.stop();
});

describe("a crowd of viewers during cold scans", () => {
  // No retry: the bounds below are what the product promises (issue 15), and
  // a run that misses one shows where it does not hold.
  it("1,000 streams in bounded loops: ~200 open at a time, the rest refused cleanly; /api/health under 250 ms p99, the target up, sampling >= 99%", async () => {
    const stream = `${server.url}/api/targets/pg/stream`;
    // The test's own viewer, from its own address, throughout: one of the 200 the caps allow.
    // Baseline: it alone (the fast cadence runs while someone watches), no crowd.
    const one = await openSse(stream, {}, "127.0.0.1");
    await one.waitFor((e) => e.event === "tick");
    await new Promise((r) => setTimeout(r, 1000));
    await loopLag();
    const cpu0 = cpuMs(server.pid);
    const baseFrom = Date.now();
    const baseline = probe();
    await new Promise((r) => setTimeout(r, BASELINE_MS));
    await baseline.stop();
    const baseTo = Date.now();
    const baseCpu = (cpuMs(server.pid) - cpu0) / (baseTo - baseFrom);
    const baseLag = await loopLag();

    const t0 = await target();
    const rss0 = rssMb(server.pid);
    const cpu1 = cpuMs(server.pid);
    const waited0 = runQueueMs(server.pid);
    const started = Date.now();
    const watch = probe();
    const crowd = { asks: 0, admitted: 0, refused: [] as Opened[], noTick: 0 };
    await Promise.all(
      Array.from({ length: LOOPS }, async (_, i) => {
        await new Promise((r) => setTimeout(r, (i / LOOPS) * RAMP_MS));
        while (crowd.admitted < OPENS) {
          crowd.asks++;
          const o = await open(stream, ADDRESSES[i % ADDRESSES.length]);
          if (o.status === 200) {
            crowd.admitted++;
            await new Promise((r) => setTimeout(r, jitter(HOLD_MS)));
            if (!o.ticked) crowd.noTick++;
            o.close();
          } else {
            crowd.refused.push(o);
            await new Promise((r) => setTimeout(r, jitter(RETRY_MS)));
          }
        }
      }),
    );
    await watch.stop();
    const ended = Date.now();
    one.close();
    const crowdMs = ended - started;
    const crowdCpu = (cpuMs(server.pid) - cpu1) / crowdMs;
    const waitedMs = runQueueMs(server.pid) - waited0;
    const t1 = await target();
    const crowdLag = await loopLag();
    const rssPeak = rssMb(server.pid);
    const left = (await target()).viewers;
    await waitFor(`viewers back to 0 (${left} right after)`, async () => (await target()).viewers === 0, 30_000);

    const ms = (x: number) => Math.round(x * 10) / 10;
    const figures = {
      baseline: {
        healthP50: ms(quantile(baseline.health, 0.5)),
        healthP99: ms(quantile(baseline.health, 0.99)),
        n: baseline.health.length,
        ...sampledBy(one, baseFrom, baseTo),
        cpu: ms(baseCpu * 100),
        loopLagMs: baseLag,
      },
      crowd: {
        seconds: ms(crowdMs / 1000),
        asks: crowd.asks,
        admitted: crowd.admitted,
        refused: crowd.refused.length,
        codes: [...new Set(crowd.refused.map((o) => `${o.status} ${o.code}`))],
        maxViewers: watch.maxViewers(),
        healthP50: ms(quantile(watch.health, 0.5)),
        healthP99: ms(quantile(watch.health, 0.99)),
        healthMax: ms(Math.max(...watch.health)),
        n: watch.health.length,
        ...sampledBy(one, started, ended),
        /** the product's own count, beside the test's: not what is judged */
        productMissed: t1.missed - t0.missed,
        cpu: ms(crowdCpu * 100),
        /** the kernel's figure: the server's event loop waiting for a CPU the scans and the test's loops held */
        runQueueMs: Math.round(waitedMs),
        loopLagMs: crowdLag,
      },
      rssMb: { before: Math.round(rss0), peak: Math.round(rssPeak), after: Math.round(rssMb(server.pid)) },
      scans: scans.scans.length,
    };
    console.log(`[crowd] ${JSON.stringify(figures)}`);

    // The caps' arithmetic: more loops than the 200 streams allowed in all (and 10 an
    // address, under its cap of 20), so some are refused, and never more than 200 open.
    // A freed stream is taken again by one of the ~50 loops waiting RETRY_MS +-25%:
    // the open streams stay near the cap (the probe reads them every 250 ms).
    // Where the machine cannot make the crowd (the loops open streams slower than they close),
    // the caps were not tested: that is the failure, with the machine's load.
    const load = `load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`;
    const formed = `the crowd did not form (${watch.maxViewers()} streams open at most, ${crowd.refused.length} refused; ${load})`;
    expect(crowd.admitted).toBeGreaterThanOrEqual(OPENS);
    expect(crowd.refused.length, formed).toBeGreaterThan(0);
    expect(watch.maxViewers()).toBeLessThanOrEqual(200);
    expect(watch.maxViewers(), formed).toBeGreaterThan(150);
    expect(crowd.noTick).toBe(0);
    for (const o of crowd.refused) {
      expect([429, 503]).toContain(o.status);
      expect(o.retryAfter).toMatch(/^\d+$/);
      expect(o.code).toBe(o.status === 429 ? "too_many_requests" : "busy");
    }
    // Issue 15's promises to the viewers within the cap: health answered under 250 ms
    // (p99), the target never marked down, >= 99% of the sampling slots sampled.
    expect(figures.crowd.healthP99, `/api/health p99 (event-loop delay p99 ${crowdLag.p99} ms; ${load})`).toBeLessThan(250);
    // Never marked down, not for a moment.
    expect([...watch.states]).toEqual(["up"]);
    expect(watch.since.size).toBe(1);
    expect(t1.statusSince).toBe(t0.statusSince);
    expect(t1.lastError).toBeNull();
    // 99% of the slots: the ticks that reached the test's viewer, of the 100 ms slots in the
    // crowd's span on the test's clock, one slot given for where the span's ends fall. At the
    // shipped budget, as users run it: the sample here costs far less than the share that would
    // stretch its cadence, and pg_aios is spaced out as they get it. Beside it, for a failure's
    // reader, how long the kernel kept the server's event loop waiting for a CPU (its run-queue
    // wait, /proc schedstat: the scans and this test's 250 loops share the cores). It is not
    // subtracted: most of it comes in waits of a few ms that cost no slot (4-5 s of 24 here,
    // with every slot sampled).
    const { slots, arrived, runQueueMs: waited } = figures.crowd;
    expect(
      arrived,
      `ticks in their slots that reached the test's viewer: ${arrived} of ${slots} (one viewer's baseline ${figures.baseline.arrived} of ${figures.baseline.slots}; the product counted ${figures.crowd.productMissed} missed at ${t1.sampleMs} ms; the event loop waited ${waited} ms for a CPU; event-loop delay p99 ${crowdLag.p99} ms, max ${crowdLag.max} ms; ${load})`,
    ).toBeGreaterThanOrEqual(Math.ceil(slots * 0.99) - 1);
    expect(scans.scans.length).toBeGreaterThan(3);
    expect(scans.errors).toEqual([]);
  });
});
