// Restarts and outages as marks on the time axis, and the restart notes.
import type { Reload, Restart } from "@/lib/schemas/settings";
import { formatClock } from "../format";
import type { Outage } from "./series";
import type { TimeDomain } from "./time";

export interface RestartMark {
  at: number;
  label: string;
}

/** About how wide "restart 14:02:11 (+2)" is at the marks' 10 px font. */
const LABEL_PX = 110;
/** The narrowest plot a chart of the page has, px (a half-width panel at 1440 px). */
export const PLOT_PX = 560;

/**
 * One line per restart in view; restarts closer than a label's width share
 * one label, on the newest ("restart 14:02:30 (+1)"), so labels never draw
 * over each other.
 */
export function restartMarks(restarts: readonly Restart[], domain: TimeDomain, plotPx = PLOT_PX): RestartMark[] {
  const shown = restarts.filter((r) => r.at >= domain.from && r.at <= domain.to).sort((a, b) => a.at - b.at);
  const minGapMs = ((domain.to - domain.from) * LABEL_PX) / plotPx;
  const marks: RestartMark[] = [];
  let cluster = 0;
  shown.forEach((r, i) => {
    const next = shown[i + 1];
    if (next && next.at - r.at < minGapMs) {
      cluster++;
      marks.push({ at: r.at, label: "" });
      return;
    }
    marks.push({ at: r.at, label: `restart ${formatClock(r.at)}${cluster ? ` (+${cluster})` : ""}` });
    cluster = 0;
  });
  return marks;
}

/** "Restarted 14:02:11: io_method worker -> sync, io_workers 3 -> 6" */
export function restartNote(r: Restart): string {
  const changes = r.changes.map((c) => `${c.name} ${c.before ?? "(unset)"} -> ${c.after ?? "(unset)"}`);
  return `Restarted ${formatClock(r.at)}: ${changes.length ? changes.join(", ") : "no io setting changed"}`;
}

/** "Reloaded 05:12:10: io_workers 3 -> 1": the settings a reload changed in force, at its pg_conf_load_time(). */
export function reloadNote(r: Reload): string {
  return `Reloaded ${formatClock(r.at)}: ${r.changes.map((c) => `${c.name} ${c.before ?? "(unset)"} -> ${c.after ?? "(unset)"}`).join(", ")}`;
}

export interface OutageSpan {
  from: number;
  to: number;
  ongoing: boolean;
}

/** Outages clipped to the view, for shading. */
export function outageSpans(outages: readonly Outage[], domain: TimeDomain): OutageSpan[] {
  return outages
    .filter((o) => o.from <= domain.to && (o.to ?? Infinity) >= domain.from)
    .map((o) => ({ from: Math.max(o.from, domain.from), to: Math.min(o.to ?? domain.to, domain.to), ongoing: o.to === null }));
}
