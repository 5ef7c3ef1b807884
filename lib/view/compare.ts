// Before and after (browser, pure): the compare response in words and cells.
import type { CompareSide, RestartSummary } from "@/lib/schemas/compare";
import type { SettingChange } from "@/lib/schemas/settings";
import { formatAgo, formatDuration, formatNumber, formatShare } from "@/lib/format";

/** "io_method worker -> sync" for one setting. */
export const changeText = (c: SettingChange) => `${c.name} ${c.before ?? "(unset)"} -> ${c.after ?? "(unset)"}`;

/** Every change, or that none of the io settings changed. */
export function changesText(changes: readonly SettingChange[]): string {
  return changes.length ? changes.map(changeText).join(", ") : "no io setting changed";
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "3 statements slower, 1 faster"; what is known when none moved. */
function verdictsText(counts: NonNullable<RestartSummary["counts"]>): string {
  const moved = [
    counts.slower ? `${plural(counts.slower, "statement", "statements")} slower` : null,
    counts.faster ? `${counts.slower ? counts.faster : plural(counts.faster, "statement", "statements")} faster` : null,
  ].filter(Boolean);
  if (moved.length) return moved.join(", ");
  if (counts.same) return "no statement measurably different";
  if (counts.too_few) return "too few calls to tell yet";
  return "no statement seen on both sides yet";
}

/** The fleet row: "restart 2 h ago: io_method worker -> sync; 3 statements slower". */
export function restartLine(summary: RestartSummary, now: number | null): string {
  const when = now === null ? "restart" : `restart ${formatAgo(summary.at, now)}`;
  const head = `${when}: ${changesText(summary.changes)}`;
  return summary.counts ? `${head}; ${verdictsText(summary.counts)}` : head;
}

export interface SideCells {
  calls: string;
  /** "15.2 ms ± 2.1 ms" */
  mean: string;
  readShare: string;
  blocksPerCall: string;
}

export function sideCells(side: CompareSide): SideCells {
  return {
    calls: formatNumber(side.calls),
    mean: side.sdMs === null ? formatDuration(side.meanMs) : `${formatDuration(side.meanMs)} ± ${formatDuration(side.sdMs)}`,
    readShare: side.readShare === null ? "unknown" : formatShare(side.readShare),
    blocksPerCall: formatNumber(side.blocksReadPerCall),
  };
}
