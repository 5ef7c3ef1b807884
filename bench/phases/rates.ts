// Phase 3: B (50/s), then C (100/s), each on its own for a while during the
// background scans (A at 10/s watching too) -> figure 2's faster rates, and
// figure 1's CPU at those rates. Both run with INFLIGHT_BUDGET raised to
// cfg.rateBudgetMs: at the default 5 ms/s the collector itself slows a
// 50/s cadence (the sample alone costs more than half the budget), which
// is the budget working, not the scheduler failing; the page's cost note
// at each rate is kept beside the figure.
import { startInflight, type Inflight } from "../lib/inflight";
import { metricSum } from "../lib/metrics-text";
import { meanMs, perStatement, pgssDelta } from "../lib/pgss";
import { cpuSeconds } from "../lib/proc";
import { pct, quantile, r3, r5, sleep } from "../lib/stats";
import { cpuOfRole, pgssSnapshot } from "../lib/target";
import type { Json, PhaseContext } from "./context";

export async function fasterRates(ctx: PhaseContext): Promise<void> {
  const { cfg, roles, paths, target: tgt, running, results, log } = ctx;
  for (const [name, role, sampleMs] of [
    ["B (50/s)", roles.b, 20],
    ["C (100/s)", roles.c, 10],
  ] as const) {
    const srv = await startInflight({
      appDir: paths.app,
      name,
      role,
      url: tgt.urlFor(role),
      sampleMs,
      window: `${cfg.windowMin}m`,
      env: { INFLIGHT_BUDGET: String(cfg.rateBudgetMs) },
      log,
    });
    running.servers.push(srv);
    try {
      await sleep(3000);
      const p0 = await pgssSnapshot(tgt.admin, [role]);
      const c0 = await cpuOfRole(tgt, role, "inflight");
      const sc0 = cpuSeconds(srv.pid);
      const m = await measureRate(srv, cfg.rateSeconds);
      const c1 = c0.pid ? cpuSeconds(c0.pid) : null;
      const sc1 = cpuSeconds(srv.pid);
      const p1 = await pgssSnapshot(tgt.admin, [role]);
      const d = pgssDelta(p0, p1, role);
      const cost = (await srv.info()).cost;
      const rate = {
        ...m,
        during: "cold scans in the background (A at 10/s watching too)",
        budgetMsPerSecond: cost.budgetMsPerSecond,
        page: { msPerSecond: cost.msPerSecond, note: cost.note },
        backendCpu: c0.cpu !== null && c1 !== null ? r5((c1 - c0.cpu) / m.seconds) : null,
        serverProcessCpu: sc0 !== null && sc1 !== null ? r5((sc1 - sc0) / m.seconds) : null,
        serverMsPerSecond: r3(d.totalExecMs / m.seconds),
        activityMeanMs: r3(meanMs(d, "activity")),
        aiosMeanMs: r3(meanMs(d, "aios")),
        byStatement: perStatement(d, m.seconds),
      };
      ((results.fig2 as Json).rates as Json[]).push(rate);
      log(`fig2 ${name}: ${pct(m.achievedShare)}% of ticks, backend CPU ${rate.backendCpu}`);
    } finally {
      await srv.stop();
      running.servers.splice(running.servers.indexOf(srv), 1);
    }
  }
}

/** Ticks seen between two /api/targets readings, and over the SSE stream (which carries the burst samples too). */
async function measureRate(srv: Inflight, seconds: number) {
  const extra = async () => metricSum(await srv.metrics().catch(() => ""), "inflight_samples_extra_total");
  const e0 = await extra();
  const i0 = await srv.info();
  const t0 = Date.now();
  await sleep(seconds * 1000);
  const i1 = await srv.info();
  const t1 = Date.now();
  const e1 = await extra();
  const burst = e0 !== null && e1 !== null ? e1 - e0 : null;
  const elapsed = t1 - t0;
  const expected = elapsed / srv.sampleMs;
  const samples = i1.samples - i0.samples;
  const missed = i1.missed - i0.missed;
  const ticks = srv.viewer.ticks.filter((k) => k.t >= t0 && k.t < t1);
  // The slots' ticks (a burst's say so, tick.extra), against the slots due.
  const slotTicks = ticks.filter((k) => !k.extra).length;
  const gaps: number[] = [];
  for (let i = 1; i < ticks.length; i++) gaps.push(ticks[i].t - ticks[i - 1].t);
  const fresh = ticks.map((k) => k.at - k.t);
  return {
    rate: 1000 / srv.sampleMs,
    sampleMs: srv.sampleMs,
    seconds: elapsed / 1000,
    expected: Math.round(expected),
    samples,
    missed,
    achievedShare: samples / expected,
    sseTicks: slotTicks,
    sseBurstTicks: ticks.length - slotTicks,
    burstSamples: burst,
    sseShare: slotTicks / expected,
    gapP50: quantile(gaps, 0.5),
    gapP99: quantile(gaps, 0.99),
    gapMax: gaps.length ? Math.max(...gaps) : null,
    freshnessP50: quantile(fresh, 0.5),
    freshnessP95: quantile(fresh, 0.95),
    from: t0,
    to: t1,
  };
}
