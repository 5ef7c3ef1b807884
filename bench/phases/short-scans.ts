// Figures 7 and 8 of phase 1: which observer saw each scan shorter than a
// second: A (10/s) and D (1/s) in their windows' runs (and, as a cross-check,
// in their SSE ticks), pg_activity in the rows it logged; and what
// pg_activity costs the target beside inflight.
import { readPgActivityCsv } from "../lib/peers";
import type { RoleDelta } from "../lib/pgss";
import { seenBy, type Run } from "../lib/runs";
import type { ScanRecord } from "../lib/scans";
import type { SseViewer } from "../lib/sse";
import { quantile, r3 } from "../lib/stats";
import type { Json, PhaseContext } from "./context";

/** The scans' figures; `summary` is the log line's text. */
export async function shortScansFigures(
  ctx: PhaseContext,
  csv: string,
  costs: { seconds: number; dA: RoleDelta; dPga: RoleDelta; burstA: number | null },
): Promise<{ fig7: Json; fig8: Json; summary: string }> {
  const { cfg, scans, A, D } = ctx;
  const phaseScans = scans.scans.filter((s) => s.phase === "scans");
  const short = phaseScans.filter((s) => s.ms < cfg.shortScanMs);
  const runsA = (await A.json<{ queries: Run[] }>("/api/targets/bench/window")).queries;
  const runsD = (await D.json<{ queries: Run[] }>("/api/targets/bench/window")).queries;
  const pgaRows = readPgActivityCsv(csv);
  const pgaShown = (s: ScanRecord) => pgaRows.some((r) => r.query.includes(s.marker));
  const pgaWait = (s: ScanRecord) => pgaRows.some((r) => r.query.includes(s.marker) && r.wait === "Y");
  const count = (f: (s: ScanRecord) => boolean) => short.filter(f).length;
  const seen10 = count((s) => seenBy(runsA, s).aio);
  const seen1 = count((s) => seenBy(runsD, s).aio);
  const shownPga = count(pgaShown);
  const durations = short.map((s) => s.ms);
  const fig7 = {
    scans: phaseScans.length,
    short: short.length,
    shortMsP50: r3(quantile(durations, 0.5)),
    shortMsMin: durations.length ? r3(Math.min(...durations)) : null,
    shortMsMax: durations.length ? r3(Math.max(...durations)) : null,
    longer: phaseScans.length - short.length,
    at10: {
      aio: seen10,
      sampled: count((s) => seenBy(runsA, s).sampled),
      fromTicks: count((s) => tickSeen(A.viewer, s)),
      share: short.length ? seen10 / short.length : null,
    },
    /** A's samples between the slots over the scans (a burst of three when a statement starts: inflight_samples_extra_total) */
    burstA: { samples: costs.burstA, perScan: costs.burstA !== null && phaseScans.length ? r3(costs.burstA / phaseScans.length) : null },
    at1: {
      aio: seen1,
      sampled: count((s) => seenBy(runsD, s).sampled),
      fromTicks: count((s) => tickSeen(D.viewer, s)),
      share: short.length ? seen1 / short.length : null,
    },
    missedAt10: short.filter((s) => !seenBy(runsA, s).aio).map((s) => missed(runsA, s)),
    byDuration: [
      [0, 250],
      [250, 500],
      [500, 1000],
    ].map(([lo, hi]) => {
      const group = short.filter((s) => s.ms >= lo && s.ms < hi);
      const share = (f: (s: ScanRecord) => boolean) => (group.length ? r3(group.filter(f).length / group.length) : null);
      return {
        ms: `${lo}-${hi}`,
        scans: group.length,
        at10: share((s) => seenBy(runsA, s).aio),
        at1: share((s) => seenBy(runsD, s).aio),
        pgActivity: share(pgaShown),
      };
    }),
    byTable: [...new Set(short.map((s) => s.table))].map((table) => {
      const group = short.filter((s) => s.table === table);
      const ms = group.map((s) => s.ms);
      return {
        table,
        scans: group.length,
        msP50: r3(quantile(ms, 0.5)),
        at10: group.filter((s) => seenBy(runsA, s).aio).length,
        at1: group.filter((s) => seenBy(runsD, s).aio).length,
        pgActivity: group.filter(pgaShown).length,
      };
    }),
  };

  // figure 8: pg_activity beside inflight
  const { seconds, dA, dPga } = costs;
  const inflightMsPerS = dA.totalExecMs / seconds;
  const pgaMsPerS = dPga.totalExecMs / seconds;
  const pgaShare = short.length ? shownPga / short.length : null;
  const share10 = short.length ? seen10 / short.length : null;
  const fig8 = {
    pgActivity: {
      version: (ctx.results.tools as Json).pg_activity,
      refreshS: cfg.pgActivityRefreshS,
      serverMsPerSecond: r3(pgaMsPerS),
      statementsPerSecond: r3(dPga.calls / seconds),
      statements: dPga.statements.slice(0, 12),
      csvRows: pgaRows.length,
      shortScansShown: shownPga,
      shortScansShownWaiting: count(pgaWait),
      share: pgaShare,
    },
    inflight10: { serverMsPerSecond: r3(inflightMsPerS), share: share10 },
    ratios: {
      serverTime: pgaMsPerS > 0 ? r3(inflightMsPerS / pgaMsPerS) : null,
      shortScansSeen: pgaShare ? r3((share10 ?? 0) / pgaShare) : null,
    },
  };
  return { fig7, fig8, summary: `short ${short.length}: 10/s ${seen10}, 1/s ${seen1}, pg_activity ${shownPga}` };
}

/** The cross-check from the stream: a tick during the scan with async handles of its pid. */
function tickSeen(v: SseViewer, s: ScanRecord) {
  return v.ticks.some((k) => k.t >= s.start && k.t <= s.end && (k.aioPids ?? []).includes(s.pid));
}

/** A short scan the 10/s server had no async handle of: what its run there did hold. */
function missed(runsA: Run[], s: ScanRecord) {
  const run = runsA.find((r) => r.pid === s.pid && r.query.includes(s.marker));
  return {
    marker: s.marker,
    table: s.table,
    ms: r3(s.ms),
    samples: run?.samples ?? 0,
    cpuSamples: run?.cpuSamples ?? 0,
    aioWaitSamples: run?.aioWaitSamples ?? 0,
    readWaitSamples: run?.readWaitSamples ?? 0,
    syncSamples: run?.syncSamples ?? 0,
    verdict: run?.verdict ?? null,
  };
}
