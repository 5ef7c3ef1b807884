// pg_stat_io deltas -> read rates and the average read size, which shows how
// well reads are combined (128 kB = 16 blocks at io_combine_limit's default).
import type { IoSample } from "@/lib/schemas/tick";
import type { Settings } from "@/lib/schemas/settings";
import { settingBytes } from "@/lib/window/settings";
import { shapeSeries, type Outage } from "./series";
import type { TimeDomain } from "./time";

export interface ThroughputRow {
  t: number;
  readsPerSec: number | null;
  mbPerSec: number | null;
  /** readBytes / reads in kB; null when nothing was read */
  avgReadKb: number | null;
  /** share of read time in the interval, ms of read per ms of wall clock */
  readTimeMs: number | null;
}

export interface ThroughputChart {
  rows: ThroughputRow[];
  /** any read in the view */
  anyReads: boolean;
  /** reads-weighted average read size over the view, kB */
  avgReadKb: number | null;
  /** largest average read size drawn, kB */
  maxReadKb: number;
}

const MB = 1024 * 1024;
const IO_MAX_POINTS = 600;

export function throughputRow(s: IoSample): ThroughputRow {
  const seconds = s.intervalMs / 1000;
  const { reads, readBytes, readTime } = s.totals;
  return {
    t: s.t,
    readsPerSec: seconds > 0 ? reads / seconds : null,
    mbPerSec: seconds > 0 ? readBytes / MB / seconds : null,
    avgReadKb: reads > 0 ? readBytes / reads / 1024 : null,
    readTimeMs: readTime,
  };
}

/** The io cadence is ~1 s whatever the tick cadence. */
export const IO_CADENCE_MS = 1000;

export function throughputChart(io: readonly IoSample[], domain: TimeDomain, outages: readonly Outage[], maxPoints = IO_MAX_POINTS): ThroughputChart {
  const rows = shapeSeries(
    io,
    { time: (s) => s.t, keys: [(s) => s.totals.readBytes / Math.max(1, s.intervalMs)], domain, cadenceMs: IO_CADENCE_MS, outages, maxPoints },
    throughputRow,
    (t): ThroughputRow => ({ t, readsPerSec: null, mbPerSec: null, avgReadKb: null, readTimeMs: null }),
  );
  let reads = 0;
  let bytes = 0;
  for (const s of io) {
    if (s.t < domain.from || s.t > domain.to) continue;
    reads += s.totals.reads;
    bytes += s.totals.readBytes;
  }
  const maxReadKb = rows.reduce((m, r) => Math.max(m, r.avgReadKb ?? 0), 0);
  return { rows, anyReads: reads > 0, avgReadKb: reads > 0 ? bytes / reads / 1024 : null, maxReadKb };
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
