// Restarts and outages as marks on the time axis, and the restart notes.
import type { Restart } from "@/lib/schemas/settings";
import { formatClock } from "../../format";
import type { Outage } from "./series";
import type { TimeDomain } from "./time";

export interface RestartMark {
  at: number;
  label: string;
}

export function restartMarks(restarts: readonly Restart[], domain: TimeDomain): RestartMark[] {
  return restarts.filter((r) => r.at >= domain.from && r.at <= domain.to).map((r) => ({ at: r.at, label: `restart ${formatClock(r.at)}` }));
}

/** "Restarted 14:02:11: io_method worker -> sync, io_workers 3 -> 6" */
export function restartNote(r: Restart): string {
  const changes = r.changes.map((c) => `${c.name} ${c.before ?? "(unset)"} -> ${c.after ?? "(unset)"}`);
  return `Restarted ${formatClock(r.at)}: ${changes.length ? changes.join(", ") : "no io setting changed"}`;
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
