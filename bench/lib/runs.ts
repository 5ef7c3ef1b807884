// Which scans an inflight server saw: a scan (its pid and unique comment,
// scans.ts) is seen when a run of it in the server's window
// (/api/targets/bench/window) holds a sample with async reads in flight.
// Pure: figures 7 and 9 read the window and the scans, this matches them.
import type { ScanRecord } from "./scans";
import { quantile } from "./stats";

/** A run of a query as a server's window keeps it. */
export type Run = {
  query: string;
  pid: number;
  samples: number;
  aioSamples: number;
  aioWaitSamples: number;
  readWaitSamples: number;
  syncSamples: number;
  cpuSamples: number;
  startedAt: number;
  verdict: string;
};

/** Whether a server's window has a run of this scan, sampled at all, and with async handles. */
export function seenBy(runs: Run[], s: Pick<ScanRecord, "pid" | "marker">) {
  const mine = runs.filter((r) => r.pid === s.pid && r.query.includes(s.marker));
  return { sampled: mine.some((r) => r.samples > 0), aio: mine.some((r) => r.aioSamples > 0) };
}

/** The scans under `shortMs` that ran wholly inside [from, to], and how many the runs saw with reads in flight. */
export function shortScansSeen(scans: ScanRecord[], runs: Run[], span: { from: number; to: number; shortMs: number }) {
  const short = scans.filter((s) => s.start >= span.from && s.end <= span.to && s.ms < span.shortMs);
  const seen = short.filter((s) => seenBy(runs, s).aio).length;
  return {
    scans: scans.filter((s) => s.start >= span.from && s.end <= span.to).length,
    short: short.length,
    seen,
    sampled: short.filter((s) => seenBy(runs, s).sampled).length,
    share: short.length ? seen / short.length : null,
    shortMsP50: quantile(
      short.map((s) => s.ms),
      0.5,
    ),
  };
}
