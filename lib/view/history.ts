// The page going back in time (issue 22): ranges beyond the window are read
// from disk (GET /api/targets/{id}/history, a tick a second) and drawn by the
// same charts, as a frozen view whose frame is the disk's seconds before the
// window's first tick and the window's own ticks after it.
import type { FindingSeverity } from "@/lib/schemas/findings";
import { FINDING_SEVERITIES } from "@/lib/schemas/findings";
import type { HistoryFinding, HistoryResponse } from "@/lib/schemas/history";
import type { QueryRun } from "@/lib/schemas/runs";
import type { IoSample, Tick } from "@/lib/schemas/tick";
import { formatClock } from "@/lib/format";
import type { Frame } from "./frame";
import type { RatePoint } from "./throughput";
import type { TimeDomain } from "./time";
import type { FrozenView } from "./view";

const HOUR = 3_600_000;

/** The range picker's spans beyond the window, ending at the newest sample. */
export const HISTORY_SPANS = [
  { id: "1h", label: "last hour", ms: HOUR },
  { id: "6h", label: "6 h", ms: 6 * HOUR },
  { id: "1d", label: "a day", ms: 24 * HOUR },
] as const;
export type HistorySpanId = (typeof HISTORY_SPANS)[number]["id"];

/** A range that starts this much before the window's first tick is read from disk. */
const SLACK_MS = 2000;

/** Whether the window cannot show all of [from, to]: it starts before the window's first tick. */
export function needsHistory(frame: Frame, range: TimeDomain): boolean {
  const first = frame.ticks[0]?.t;
  return first === undefined || range.from < first - SLACK_MS;
}

/** The disk's seconds as the frame's rows: ticks (seq by position), pg_stat_io deltas and the live read estimate. */
export function historyFrame(disk: HistoryResponse): Frame {
  const ticks: Tick[] = [];
  const io: IoSample[] = [];
  const rates: RatePoint[] = [];
  disk.ticks.forEach(({ read, rate, ...tick }, i) => {
    ticks.push({ seq: i + 1, ...tick });
    if (read)
      io.push({
        seq: i + 1,
        t: tick.t,
        intervalMs: read.intervalMs,
        rows: [],
        totals: { reads: read.reads, readBytes: read.readBytes, readTime: read.readTime, hits: read.hits },
      });
    if (rate) rates.push({ t: tick.t, ...rate });
  });
  return { ticks, io, rates };
}

/** The disk's rows before the window's first, then the window's own (finer) ones. */
export function mergeFrames(disk: Frame, live: Frame): Frame {
  const cut = <T extends { t: number }>(rows: readonly T[], first: number | undefined) =>
    first === undefined ? rows : rows.filter((r) => r.t < first);
  return {
    ticks: [...cut(disk.ticks, live.ticks[0]?.t), ...live.ticks],
    io: [...cut(disk.io, live.io[0]?.t), ...live.io],
    rates: [...cut(disk.rates, live.rates[0]?.t), ...live.rates],
  };
}

/** The runs of both, by id: the window's copy where it has one; running first, then newest first, as the table lists them. */
export function mergeRuns(disk: readonly QueryRun[], live: readonly QueryRun[]): QueryRun[] {
  const byId = new Map(disk.map((r) => [r.id, r]));
  for (const r of live) byId.set(r.id, r);
  return [...byId.values()].sort((a, b) => Number(a.endedAt !== null) - Number(b.endedAt !== null) || b.startedAt - a.startedAt);
}

export interface HistoryFindingLine {
  finding: HistoryFinding;
  /** "03:01:12 - 03:04:40"; "03:01:12 - 03:04:40 (still on when last seen)" when inflight stopped first */
  span: string;
}

const RANK = Object.fromEntries(FINDING_SEVERITIES.map((s, i) => [s, i])) as Record<FindingSeverity, number>;

/** The findings that held in the range, most severe first, then in the order they began. */
export function historyFindingLines(findings: readonly HistoryFinding[], range: TimeDomain): HistoryFindingLine[] {
  return findings
    .filter((f) => f.from <= range.to && (f.to ?? f.seen) >= range.from)
    .sort((a, b) => RANK[a.severity] - RANK[b.severity] || a.from - b.from)
    .map((f) => ({
      finding: f,
      span: `${formatClock(f.from)} - ${f.to === null ? `${formatClock(f.seen)} (still on when last seen)` : formatClock(f.to)}`,
    }));
}

/** The history route for a range. */
export const historyUrl = (id: string, range: TimeDomain) =>
  `/api/targets/${encodeURIComponent(id)}/history?from=${Math.floor(range.from)}&to=${Math.ceil(range.to)}`;

/** A frozen view with the disk's range added: its seconds, runs, restarts and findings. */
export function withHistory(view: FrozenView, disk: HistoryResponse): FrozenView {
  const restarts = new Map([...disk.restarts, ...view.restarts].map((r) => [r.at, r]));
  const frame = mergeFrames(historyFrame(disk), view.frame);
  return {
    ...view,
    frame,
    queries: { ...view.queries, queries: mergeRuns(disk.runs, view.queries.queries) },
    restarts: [...restarts.values()].sort((a, b) => a.at - b.at),
    history: { findings: disk.findings, note: disk.note, seconds: frame.ticks.length - view.frame.ticks.length },
  };
}
