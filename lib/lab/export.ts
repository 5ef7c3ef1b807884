// The lab's results as text (pure): CSV of the runs, and the table
// `npm run lab` prints (the same columns as the page's).
import type { LabMethodSummary, LabRun } from "../schemas/lab";
import { formatDuration, formatNumber, formatShare } from "../format";

const CSV_COLUMNS = ["round", "method", "execution_ms", "planning_ms", "read_wait_ms", "read_share", "shared_read", "shared_hit", "at"] as const;

/** One line per run, EXPLAIN's figures as it gave them. */
export function runsCsv(runs: readonly LabRun[]): string {
  const cell = (v: number | string | null) => (v === null ? "" : String(v));
  const lines = runs.map((r) => [r.round, r.method, r.executionMs, r.planningMs, r.readWaitMs, r.readShare, r.sharedRead, r.sharedHit, new Date(r.at).toISOString()].map(cell).join(","));
  return `${[CSV_COLUMNS.join(","), ...lines].join("\n")}\n`;
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

/** The summary as a plain-text table, columns padded. */
export function summaryTable(summary: readonly LabMethodSummary[]): string {
  const rows = [SUMMARY_COLUMNS.map(([h]) => h as string), ...summary.map((s) => SUMMARY_COLUMNS.map(([, cell]) => cell(s)))];
  const widths = SUMMARY_COLUMNS.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd()).join("\n");
}
