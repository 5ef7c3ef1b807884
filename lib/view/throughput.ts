// Read throughput, drawn as what each figure is. pg_stat_io counts a
// statement's reads when it ends (a 2.5 GB scan lands as one second of
// 2,600 MB/s): those are drawn as amounts landing, not as a rate. The rate
// is the live estimate from pg_aios block positions: the running scans'
// blocks covered per second x block_size. The average read size (from
// pg_stat_io) shows how well reads are combined (128 kB = 16 blocks at
// io_combine_limit's default).
import type { QueryRun } from "@/lib/schemas/runs";
import type { IoSample, Tick } from "@/lib/schemas/tick";
import type { Settings } from "@/lib/schemas/settings";
import { liveReadRate } from "@/lib/model/window/read-rate";
import { settingBytes } from "@/lib/model/window/settings";
import { shapeSeries, type Outage } from "./series";
import type { TimeDomain } from "./time";

/** The live read estimate at one moment (server time). */
export interface RatePoint {
  t: number;
  /** bytes per second summed over the running scans with block positions */
  bytesPerSec: number;
  /** running scans counted */
  scans: number;
}

/**
 * The panel's "now", of the header's sample: the live rate of the running
 * scans (their block positions, from the runs), and beside it the async reads
 * in flight in the newest sample that no rate covers (a scan with fewer than
 * two block positions so far, or a run that gives none). From the runs alone
 * (sent twice a second, a sample older than the header's at times) it said
 * "no scan reading" in 8 of 300 looks at the demo while the header counted a
 * read in flight. Synchronous reads (index pages) are named, not rated: the
 * header counts them, and "no read in flight" beside its "1 sync" read as a
 * contradiction.
 */
export function readRateNowText(
  runs: readonly QueryRun[],
  latest: Pick<Tick, "aio" | "runs"> | null,
  blockSize: number,
  formatRate: (bytesPerSec: number) => string,
): string {
  const { bytesPerSec, scans } = liveReadRate(runs, blockSize);
  const rate = scans ? `≈ ${formatRate(bytesPerSec)} (${scans} scan${scans === 1 ? "" : "s"})` : null;
  if (!latest?.aio) return rate ?? (latest ? "no rate (pg_aios not read this sample)" : "no sample yet");
  const rated = new Set(runs.filter((r) => r.endedAt === null && r.readBlocksPerSec !== null).map((r) => r.id));
  const covered = latest.runs.reduce((n, s) => n + (rated.has(s.id) ? (s.inFlight ?? 0) : 0), 0);
  const unrated = Math.max(0, latest.aio.inFlight - covered);
  const early = unrated ? `${unrated} read${unrated === 1 ? "" : "s"} in flight, no rate yet` : null;
  if (rate || early) return [rate, early].filter(Boolean).join("; ");
  // The header counts synchronous reads too: say they are there, with no rate (one page at a time, no block positions).
  const sync = latest.aio.sync;
  return sync ? `no async read in flight (${sync} synchronous, no rate)` : "no read in flight";
}

export interface ThroughputRow {
  t: number;
  /** MB pg_stat_io counted in the interval; null where none landed (nothing to draw) */
  mbCounted: number | null;
  /** readBytes / reads in kB; null when nothing was read */
  avgReadKb: number | null;
  reads: number | null;
}

export interface LiveRow {
  t: number;
  /** the live estimate, MB/s */
  mbPerSec: number | null;
}

export interface ThroughputChart {
  /** pg_stat_io: the read size */
  rows: ThroughputRow[];
  /** pg_stat_io: amounts landing, drawn as dots: thinned harder (docs/CHARTS.md rule 5; the dots are arcs of one path, rule 11) */
  counted: ThroughputRow[];
  /** the live estimate from pg_aios block positions */
  live: LiveRow[];
  /** any read counted in the view */
  anyReads: boolean;
  /** reads-weighted average read size over the view, kB */
  avgReadKb: number | null;
  /** largest average read size drawn, kB */
  maxReadKb: number;
  /** the first live estimate kept (this page's store began then); null without one */
  liveSince: number | null;
}

const MB = 1024 * 1024;
export const IO_MAX_POINTS = 600;
/** Dots of amounts landing: at most about this many (min and max of each bucket kept). */
export const COUNTED_MAX_POINTS = 100;

export function throughputRow(s: IoSample): ThroughputRow {
  const { reads, readBytes } = s.totals;
  return {
    t: s.t,
    mbCounted: readBytes > 0 ? readBytes / MB : null,
    avgReadKb: reads > 0 ? readBytes / reads / 1024 : null,
    reads: reads > 0 ? reads : null,
  };
}

/** The io cadence is ~1 s whatever the tick cadence. */
export const IO_CADENCE_MS = 1000;
/** Queries (and so the live estimate) arrive every 0.5-1 s while someone watches. */
export const RATE_CADENCE_MS = 1000;

export function throughputChart(
  io: readonly IoSample[],
  rates: readonly RatePoint[],
  domain: TimeDomain,
  outages: readonly Outage[],
  maxPoints = IO_MAX_POINTS,
): ThroughputChart {
  const ioSeries = (points: number) =>
    shapeSeries(
      io,
      {
        time: (s) => s.t,
        keys: [(s) => s.totals.readBytes / Math.max(1, s.intervalMs)],
        domain,
        cadenceMs: IO_CADENCE_MS,
        outages,
        maxPoints: points,
      },
      throughputRow,
      (t): ThroughputRow => ({ t, mbCounted: null, avgReadKb: null, reads: null }),
    );
  const rows = ioSeries(maxPoints);
  const counted = ioSeries(Math.min(maxPoints, COUNTED_MAX_POINTS)).filter((r) => r.mbCounted !== null);
  const live = shapeSeries(
    rates,
    { time: (p) => p.t, keys: [(p) => p.bytesPerSec], domain, cadenceMs: RATE_CADENCE_MS, outages, maxPoints },
    (p): LiveRow => ({ t: p.t, mbPerSec: p.bytesPerSec / MB }),
    (t): LiveRow => ({ t, mbPerSec: null }),
  );
  let reads = 0;
  let bytes = 0;
  for (const s of io) {
    if (s.t < domain.from || s.t > domain.to) continue;
    reads += s.totals.reads;
    bytes += s.totals.readBytes;
  }
  const maxReadKb = rows.reduce((m, r) => Math.max(m, r.avgReadKb ?? 0), 0);
  return {
    rows,
    counted,
    live,
    anyReads: reads > 0,
    avgReadKb: reads > 0 ? bytes / reads / 1024 : null,
    maxReadKb,
    liveSince: rates[0]?.t ?? null,
  };
}

/** io_combine_limit as PostgreSQL applies it (at most io_max_combine_limit), kB; null when unknown. */
export function combineLimitKb(settings: Settings): number | null {
  const kb = (name: string) => {
    const s = settings[name];
    const bytes = s ? settingBytes(s.setting, s.unit) : null;
    return bytes === null ? null : bytes / 1024;
  };
  const limit = kb("io_combine_limit");
  const max = kb("io_max_combine_limit");
  return limit === null ? null : max === null ? limit : Math.min(limit, max);
}
