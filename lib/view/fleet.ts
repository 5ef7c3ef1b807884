// The fleet page: one row per target from GET /api/fleet, and its sparkline.
import type { FleetEntry } from "@/lib/schemas/api";
import type { TargetInfo } from "@/lib/schemas/target";
import type { Finding } from "@/lib/schemas/findings";
import { formatAgo, formatNumber } from "@/lib/format";
import { restartLine } from "./compare";
import { runHref } from "./findings";
import { sinceText } from "./header";
import { formatViewParams } from "./url";

export interface FleetRow {
  target: TargetInfo;
  /** null until /api/fleet answered: the figures are unknown, not zero */
  entry: FleetEntry | null;
}

/** The polled entries, or the server-rendered targets while the first poll is under way. */
export function fleetRows(polled: readonly FleetEntry[] | undefined, initial: readonly TargetInfo[] | null): FleetRow[] {
  if (polled) return polled.map((entry) => ({ target: entry.target, entry }));
  return (initial ?? []).map((target) => ({ target, entry: null }));
}

/**
 * Everything a fleet row shows, as one string: the texts that move with the
 * clock, read against `now`, and the figures of the poll, less those the row
 * does not show (sample counts, costs). Two equal strings draw the same row.
 */
export function rowShows({ target: t, entry }: FleetRow, now: number | null): string {
  const busiest = entry?.busiestQuery;
  return JSON.stringify([
    [t.id, t.name, t.demo, t.status, t.statusSince, t.lastError, t.serverVersion, t.ioMethod, t.sampleMs],
    formatNumber(t.achievedHz),
    sinceText(t, now),
    entry && { ...entry, target: null },
    entry?.lastRestart && now !== null ? restartLine(entry.lastRestart, now) : null,
    busiest && now !== null ? formatAgo(busiest.startedAt, now) : null,
  ]);
}

export interface Spark {
  /** one SVG polyline `points` list per run of samples; a null breaks the line */
  lines: string[];
  /** lone samples (a null on each side): drawn as dots */
  dots: { x: number; y: number }[];
  /** the highest value, 0 without any */
  peak: number;
  /** the top of the scale: the peak, at least 1 */
  max: number;
  /** seconds with a sample */
  samples: number;
}

/**
 * Max-per-second values (oldest first) as polylines in a width x height box,
 * 0 at the bottom. The scale starts at 0 so a flat line reads as "nothing".
 */
export function sparkLines(values: readonly (number | null)[], width: number, height: number): Spark {
  const peak = values.reduce<number>((m, v) => (v !== null && v > m ? v : m), 0);
  const max = Math.max(1, peak);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const round = (n: number) => Math.round(n * 10) / 10;
  const point = (v: number, i: number) => ({ x: round(i * step), y: round(height - (v / max) * height) });
  const lines: string[] = [];
  const dots: { x: number; y: number }[] = [];
  let run: { x: number; y: number }[] = [];
  const end = () => {
    if (run.length === 1) dots.push(run[0]);
    else if (run.length > 1) lines.push(run.map((p) => `${p.x},${p.y}`).join(" "));
    run = [];
  };
  values.forEach((v, i) => (v === null ? end() : run.push(point(v, i))));
  end();
  return { lines, dots, peak, max, samples: values.filter((v) => v !== null).length };
}

/** The fleet page's footnote: the two cadences, as configured; `waitSamplingMs`: the watched one where pg_wait_sampling is in use, when it differs. */
export function cadenceNote(sampleMs: number, idleSampleMs: number, waitSamplingMs: number | null = null): string {
  const every = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000 === 1 ? "once a second" : `every ${ms / 1000} s`}` : `every ${ms} ms`);
  if (sampleMs === idleSampleMs) return `Each target is sampled ${every(sampleMs)}; the rate achieved is under its name.`;
  const there =
    waitSamplingMs !== null && waitSamplingMs !== sampleMs
      ? ` (${every(waitSamplingMs)} where pg_wait_sampling gives the wait events)`
      : "";
  return `Each target is sampled ${every(sampleMs)}${there} while someone has its page open, ${every(idleSampleMs)} otherwise; the rate achieved is under its name.`;
}

/** Where a target's top finding leads: its run's row and timeline, or the target page. */
export function findingHref(targetId: string, finding: Pick<Finding, "runId">): string {
  return finding.runId ? runHref(targetId, finding.runId) : `/targets/${encodeURIComponent(targetId)}`;
}

/** A past finding's span on its target's page, with a minute either side. */
export function historyFindingHref(targetId: string, finding: { from: number; to: number | null; seen: number }): string {
  const range = { from: Math.floor(finding.from - 60_000), to: Math.ceil((finding.to ?? finding.seen) + 60_000) };
  return `/targets/${encodeURIComponent(targetId)}?${formatViewParams({ view: null, range, run: null })}`;
}
