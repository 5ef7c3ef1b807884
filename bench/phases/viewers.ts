// Phase 2: A with its one SSE viewer, then with 50 -> figure 3, and figure
// 4's fifty-viewer freshness. The memory server E (10/s, 60 s window) starts
// here and is read every second until the browser phase -> figure 5.
// Cold scans run in the background from here to the end.
import { startInflight, type Inflight } from "../lib/inflight";
import { cpuSeconds, rssBytes } from "../lib/proc";
import { SseViewer } from "../lib/sse";
import { quantile, r3, r5, sleep } from "../lib/stats";
import { pgssDelta } from "../lib/pgss";
import { pgssSnapshot } from "../lib/target";
import type { Json, PhaseContext } from "./context";

export async function viewersAndMemory(ctx: PhaseContext): Promise<void> {
  const { cfg, roles, paths, target: tgt, scans, running, memory, errors, log } = ctx;
  scans.phase = "background";
  void scans.start();
  const E = await startInflight({
    appDir: paths.app,
    name: "E (10/s, 60 s window)",
    role: roles.e,
    url: tgt.urlFor(roles.e),
    sampleMs: 100,
    window: `${cfg.memWindowS}s`,
    log,
  });
  running.servers.push(E);
  memory.task = watchMemory(ctx, E).catch((err) => {
    errors.push(`memory: ${(err as Error).message}`);
  });
  await measureViewers(ctx);
}

/**
 * Figure 5: E's RSS every second. GC makes single readings jump by 10-20%,
 * and a collection can give back a quarter of the heap for a minute while
 * it grows again: a median of the 10 s up to a moment says which side of a
 * collection the moment fell on (129 MB at 60 s, 167 at 50 s, in one run).
 * The verdict compares the most each minute held, which a leak raises and a
 * collection's timing does not: the window's first minute (filling) against
 * the last minute read, minutes later. The 10 s medians are kept beside it.
 * Past the figure's two moments (window full, then twice that) E keeps
 * running (and being read) until memory.stop: a longer look at whether
 * memory stays flat. Then E stops and the results are saved.
 */
async function watchMemory(ctx: PhaseContext, E: Inflight): Promise<void> {
  const { cfg, results, running, memory, log } = ctx;
  const first = E.viewer.ticks[0]?.t ?? E.watchedSince;
  const series: { s: number; rss: number | null }[] = [];
  const at = (sec: number) => first + sec * 1000;
  for (let sec = 1; sec <= 2 * cfg.memWindowS || !memory.stop; sec++) {
    await sleep(Math.max(0, at(sec) - Date.now()));
    series.push({ s: sec, rss: rssBytes(E.pid) });
  }
  const lastSec = series[series.length - 1].s;
  const around = (sec: number) => series.filter((x) => x.s > sec - 10 && x.s <= sec && x.rss !== null).map((x) => x.rss as number);
  const span = (a: number, b: number) => series.filter((x) => x.s > a && x.s <= b && x.rss !== null).map((x) => x.rss as number);
  const range = (xs: number[]) => (xs.length ? [Math.min(...xs), Math.max(...xs)] : null);
  const peak = (a: number, b: number) => {
    const xs = span(a, b);
    return xs.length ? Math.max(...xs) : null;
  };
  const peaks = {
    firstWindow: peak(0, cfg.memWindowS),
    secondWindow: peak(cfg.memWindowS, 2 * cfg.memWindowS),
    lastMinute: peak(lastSec - 60, lastSec),
  };
  const rssFill = quantile(around(cfg.memWindowS), 0.5);
  const rssAfter = quantile(around(2 * cfg.memWindowS), 0.5);
  const info = await E.info();
  results.fig5 = {
    window: `${cfg.memWindowS}s`,
    pid: E.pid,
    rssAtFill: rssFill,
    rssAfter,
    growth: rssFill && rssAfter ? (rssAfter - rssFill) / rssFill : null,
    peaks: { ...peaks, growth: peaks.firstWindow && peaks.lastMinute ? (peaks.lastMinute - peaks.firstWindow) / peaks.firstWindow : null },
    pointReadings: {
      atFill: series.find((x) => x.s === cfg.memWindowS)?.rss ?? null,
      after: series.find((x) => x.s === 2 * cfg.memWindowS)?.rss ?? null,
    },
    rangeFirstWindow: range(span(0, cfg.memWindowS)),
    rangeSecondWindow: range(span(cfg.memWindowS, 2 * cfg.memWindowS)),
    late: {
      afterSeconds: lastSec,
      rss: quantile(around(lastSec), 0.5),
      growthFromFill: rssFill ? ((quantile(around(lastSec), 0.5) ?? 0) - rssFill) / rssFill : null,
      range: range(span(lastSec - 60, lastSec)),
    },
    series: series.filter((x) => x.s % 5 === 0),
    samples: info.samples,
    serverA: { window: `${cfg.windowMin}m`, rssAtStart: ctx.rssAStart },
  };
  log(`fig5 rss at fill ${rssFill}, after ${rssAfter}`);
  await E.stop();
  running.servers.splice(running.servers.indexOf(E), 1);
  ctx.save();
}

/** Figure 3 (what the target pays for 1 and for 50 viewers of A) and figure 4's fifty-viewer freshness. */
async function measureViewers(ctx: PhaseContext): Promise<void> {
  const { cfg, roles, target: tgt, A, running, results, log } = ctx;
  const viewers = running.viewers;
  const watched = [roles.a];
  const bytes0 = new Map(A.viewer.bytes);
  const p0 = await pgssSnapshot(tgt.admin, watched);
  const i0 = await A.info();
  const srv0 = cpuSeconds(A.pid);
  const me0 = process.cpuUsage();
  const v0 = Date.now();
  await sleep(cfg.viewerSeconds * 1000);
  const p1 = await pgssSnapshot(tgt.admin, watched);
  const i1 = await A.info();
  const srv1 = cpuSeconds(A.pid);
  const me1 = process.cpuUsage();
  const v1 = Date.now();
  // what one viewer receives, by event, per second
  const bytesPerSecond = Object.fromEntries(
    [...A.viewer.bytes].map(([k, v]) => [k, Math.round((v - (bytes0.get(k) ?? 0)) / ((v1 - v0) / 1000))]),
  );
  const one = pgssDelta(p0, p1, roles.a);
  for (let i = 0; i < cfg.extraViewers; i++) {
    const v = new SseViewer(A.streamUrl());
    await v.open();
    viewers.push(v);
  }
  await sleep(2000);
  const infoMany = await A.info();
  const p2 = await pgssSnapshot(tgt.admin, watched);
  const srv2 = cpuSeconds(A.pid);
  const me2 = process.cpuUsage();
  const infoMany0 = await A.info();
  const v2 = Date.now();
  await sleep(cfg.viewerSeconds * 1000);
  const p3 = await pgssSnapshot(tgt.admin, watched);
  const srv3 = cpuSeconds(A.pid);
  const me3 = process.cpuUsage();
  const infoMany1 = await A.info();
  const v3 = Date.now();
  const many = pgssDelta(p2, p3, roles.a);
  const fresh = [A.viewer, ...viewers].flatMap((v) => v.ticks.filter((k) => k.t >= v2 && k.t < v3).map((k) => k.at - k.t));
  const perViewer = [A.viewer, ...viewers].map((v) => v.ticks.filter((k) => k.t >= v2 && k.t < v3).length);
  for (const v of viewers) v.close();
  viewers.length = 0;
  const oneRate = one.calls / ((v1 - v0) / 1000);
  const manyRate = many.calls / ((v3 - v2) / 1000);
  results.fig3 = {
    oneViewer: {
      seconds: (v1 - v0) / 1000,
      calls: one.calls,
      perSecond: r3(oneRate),
      serverMsPerSecond: r3(one.totalExecMs / ((v1 - v0) / 1000)),
      samplesPerSecond: r3((i1.samples - i0.samples) / ((v1 - v0) / 1000)),
    },
    fiftyViewers: {
      seconds: (v3 - v2) / 1000,
      viewersReported: infoMany.viewers,
      calls: many.calls,
      perSecond: r3(manyRate),
      serverMsPerSecond: r3(many.totalExecMs / ((v3 - v2) / 1000)),
      samplesPerSecond: r3((infoMany1.samples - infoMany0.samples) / ((v3 - v2) / 1000)),
      ticksPerViewerMin: Math.min(...perViewer),
      ticksPerViewerMax: Math.max(...perViewer),
    },
    ratio: oneRate ? r3(manyRate / oneRate) : null,
    bytesPerViewerPerSecond: bytesPerSecond,
    serverProcessCpu: {
      oneViewer: srv0 !== null && srv1 !== null ? r5((srv1 - srv0) / ((v1 - v0) / 1000)) : null,
      fiftyViewers: srv2 !== null && srv3 !== null ? r5((srv3 - srv2) / ((v3 - v2) / 1000)) : null,
    },
    /** the bench's own process (the 50 SSE clients read everything sent) */
    benchProcessCpu: {
      oneViewer: r5((me1.user + me1.system - me0.user - me0.system) / 1000 / (v1 - v0)),
      fiftyViewers: r5((me3.user + me3.system - me2.user - me2.system) / 1000 / (v3 - v2)),
    },
    samplesWithFifty: { samples: infoMany1.samples - infoMany0.samples, missed: infoMany1.missed - infoMany0.missed },
  };
  (results.fig4 as Json).fiftyViewers = {
    ticks: fresh.length,
    p50: r3(quantile(fresh, 0.5)),
    p95: r3(quantile(fresh, 0.95)),
    max: fresh.length ? Math.max(...fresh) : null,
  };
  log(`fig3 ${JSON.stringify(results.fig3)}`);
}
