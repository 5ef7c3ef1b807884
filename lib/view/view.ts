// What the target page shows: the live window, or a frozen copy of it to
// study while the stream goes on filling the store in the background.
import type { HistoryFinding } from "@/lib/schemas/history";
import type { QueryRun } from "@/lib/schemas/runs";
import type { Restart } from "@/lib/schemas/settings";
import type { QueriesPayload } from "@/lib/schemas/window";
import type { Frame, Outages } from "./frame";
import { viewDomain, type TimeDomain } from "./time";

export interface FrozenView {
  /** the range shown, server time */
  from: number;
  to: number;
  /** the data as it was when frozen: arrays the store never changes again */
  frame: Frame;
  /** the sampling interval then (a gap in the frozen series is judged by it, not by today's); null: not known */
  cadenceMs: number | null;
  queries: QueriesPayload;
  restarts: readonly Restart[];
  outages: Outages;
  /** browser ms when the view was frozen */
  frozenAt: number;
  /** store.ticksReceived then: the ticks that arrived since are the difference */
  ticksAtFreeze: number;
  /** a range selected on a chart (rather than the view frozen as it was) */
  zoomed: boolean;
  /** the range "reset zoom" goes back to; null: back to live */
  unzoomTo: TimeDomain | null;
  /** read from disk as well (the range starts before the window): its findings as they held, and what to know */
  history?: HistoryView;
}

export interface HistoryView {
  findings: HistoryFinding[];
  note: string | null;
  /** seconds the disk added before the window's first tick */
  seconds: number;
}

/** The newest sample time in a frame; `fallback` when it holds none. */
export function frameNewest(frame: Frame, fallback: number): number {
  return Math.max(frame.ticks.at(-1)?.t ?? 0, frame.io.at(-1)?.t ?? 0) || fallback;
}

/** The live view's range right now. */
export function liveDomain(frame: Frame, spanMs: number | null, windowMs: number, fallback: number): TimeDomain {
  return viewDomain(frameNewest(frame, fallback), spanMs, windowMs);
}

/** Narrows a frozen view to a range selected on a chart; "reset zoom" returns to where it was. */
export function zoomInto(view: FrozenView, range: TimeDomain): FrozenView {
  return { ...view, ...range, zoomed: true, unzoomTo: view.zoomed ? view.unzoomTo : { from: view.from, to: view.to } };
}

/** Back to the range before the first zoom, or null for live. */
export function unzoom(view: FrozenView): FrozenView | null {
  return view.unzoomTo ? { ...view, ...view.unzoomTo, zoomed: false, unzoomTo: null } : null;
}

/**
 * A dragged selection as a range: ordered, in whole ms (a thinned series puts
 * rows between samples; the URL keeps whole ms), and at least `minMs` wide
 * (else a click, not a drag).
 */
export function dragRange(a: number, b: number, minMs: number): TimeDomain | null {
  const from = Math.floor(Math.min(a, b));
  const to = Math.ceil(Math.max(a, b));
  return Number.isFinite(from) && Number.isFinite(to) && to - from >= minMs ? { from, to } : null;
}

/** Runs that were running at some point of [from, to]: started by its end, not ended before its start. */
export function runsInRange(runs: readonly QueryRun[], range: TimeDomain): QueryRun[] {
  return runs.filter((r) => r.startedAt <= range.to && (r.endedAt ?? Infinity) >= range.from);
}

/** Whether [from, to] holds no sample of the frame: it has left the window, or lies ahead of it. */
export function rangeOutsideFrame(frame: Frame, range: TimeDomain): boolean {
  const first = frame.ticks[0]?.t;
  const last = frame.ticks.at(-1)?.t;
  return first === undefined || last === undefined || range.to < first || range.from > last;
}
