// The lab's results as text (pure): CSV of the runs, and the table
// `npm run lab` prints (the same columns as the page's).
import type { LabMethodSummary, LabRun } from "../../schemas/lab";
import { formatDuration, formatNumber, formatShare } from "../../format";
import type { LabLever } from "../../schemas/enums";
import { ioText, prefetchText } from "./explain-io";
import { valueOf } from "./summary";

const CSV_COLUMNS = ["round", "method", "execution_ms", "planning_ms", "read_wait_ms", "read_share", "shared_read", "shared_hit"] as const;
/** PostgreSQL 19's EXPLAIN (IO) of the scan: only when a run has them. */
const IO_CSV_COLUMNS = [
  "scan_node",
  "prefetch_avg",
  "prefetch_max",
  "prefetch_capacity",
  "io_count",
  "io_waits",
  "io_size_blocks",
  "ios_in_progress",
] as const;

/** A lever other than io_method: its value, each session's time, what SHOW said in them, the io workers seen. */
const LEVER_CSV_COLUMNS = ["value", "sessions_ms", "shown", "io_workers_min", "io_workers_max"] as const;

/** One line per run, EXPLAIN's figures as it gave them (on 19 its IO ones too). */
export function runsCsv(runs: readonly LabRun[]): string {
  const cell = (v: number | string | null | undefined) => (v === null || v === undefined ? "" : String(v));
  const withIo = runs.some((r) => r.io);
  const withValue = runs.some((r) => r.value !== undefined);
  const lines = runs.map((r) => {
    const io = r.io;
    const ioCells = withIo
      ? [io?.node, io?.prefetchAvg, io?.prefetchMax, io?.capacity, io?.ioCount, io?.ioWaits, io?.ioSizeBlocks, io?.inProgress]
      : [];
    const leverCells = withValue ? [r.value, r.sessionsMs?.join(" "), r.shown, r.workers?.min, r.workers?.max] : [];
    return [
      r.round,
      r.method,
      r.executionMs,
      r.planningMs,
      r.readWaitMs,
      r.readShare,
      r.sharedRead,
      r.sharedHit,
      ...ioCells,
      ...leverCells,
      new Date(r.at).toISOString(),
    ]
      .map(cell)
      .join(",");
  });
  const header = [...CSV_COLUMNS, ...(withIo ? IO_CSV_COLUMNS : []), ...(withValue ? LEVER_CSV_COLUMNS : []), "at"];
  return `${[header.join(","), ...lines].join("\n")}\n`;
}

/** The columns of the summary, each a header and a cell per method. */
export const SUMMARY_COLUMNS = [
  ["io_method", (s) => s.method],
  ["runs", (s) => String(s.runs)],
  ["median", (s) => formatDuration(s.medianMs)],
  ["spread (min–max)", (s) => `${formatDuration(s.minMs)} – ${formatDuration(s.maxMs)}`],
  ["read wait", (s) => (s.readWaitMs === null ? "unknown" : formatDuration(s.readWaitMs))],
  ["read share", (s) => (s.readShare === null ? "unknown" : formatShare(s.readShare))],
  ["blocks read", (s) => formatNumber(s.blocksRead)],
  ["against the first", (s) => s.versus?.text ?? "–"],
] as const satisfies readonly (readonly [string, (s: LabMethodSummary) => string])[];

/** PostgreSQL 19's EXPLAIN (IO) of the scan, shown when any method has it. */
export const IO_COLUMNS = [
  ["prefetch (avg / max / capacity)", (s) => prefetchText(s.io)],
  ["scan I/Os", (s) => ioText(s.io)],
] as const satisfies readonly (readonly [string, (s: LabMethodSummary) => string])[];

type Column = readonly [string, (s: LabMethodSummary) => string];

/** The table's columns: the first is the lever's; EXPLAIN (IO)'s only where a run has them (19). */
export function summaryColumns(summary: readonly LabMethodSummary[], lever: LabLever = "io_method"): readonly Column[] {
  const [, ...rest] = SUMMARY_COLUMNS;
  const columns: readonly Column[] = lever === "io_method" ? SUMMARY_COLUMNS : [[lever, (s) => valueOf(s)], ...rest];
  return summary.some((s) => s.io) ? [...columns, ...IO_COLUMNS] : columns;
}

/** The summary as a plain-text table, columns padded. */
export function summaryTable(summary: readonly LabMethodSummary[], lever: LabLever = "io_method"): string {
  const columns = summaryColumns(summary, lever);
  const rows = [columns.map(([h]) => h as string), ...summary.map((s) => columns.map(([, cell]) => cell(s)))];
  const widths = columns.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
