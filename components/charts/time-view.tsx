"use client";
// What every time chart of a target shares: the visible range (ending at the
// newest sample, or frozen), its ticks, restart marks and outage spans.
import { createContext, useContext, useMemo } from "react";
import { ReferenceArea, ReferenceLine } from "recharts";
import { FRAME_MS, useChannel, useChannelSelect, useStaggeredFrame } from "@/lib/client/hooks";
import { pixelBudget, plotPixels, redrawMs } from "@/lib/view/series";
import { outageSpans, restartMarks, type OutageSpan, type RestartMark } from "@/lib/view/marks";
import type { QueriesPayload } from "@/lib/schemas/window";
import type { Frame, Outages } from "@/lib/view/frame";
import { timeTicks, viewDomain, type TimeDomain } from "@/lib/view/time";
import { runsInRange, type FrozenView } from "@/lib/view/view";
import type { ChartBox } from "./chart-box";
import { OUTAGE_FILL, PLOT_INSET, RESTART_COLOR } from "./theme";

export interface ViewState {
  /** the live span, ms; null: the whole window */
  spanMs: number | null;
  /** a frozen copy to show instead of the live data */
  frozen: FrozenView | null;
  /** select [from, to] on a chart: freezes the view there */
  zoom: (range: TimeDomain) => void;
}

const noZoom = () => {};
export const ViewContext = createContext<ViewState>({ spanMs: 60_000, frozen: null, zoom: noZoom });
export const useView = () => useContext(ViewContext);

const DEFAULT_WINDOW_MS = 15 * 60_000;
const DEFAULT_SAMPLE_MS = 100;

/** The props of a chart's time axis and marks: one object, the same until the view moves. */
export interface TimeAxis {
  /** [from, to] for XAxis */
  xDomain: [number, number];
  xTicks: number[];
  marks: RestartMark[];
  outageAreas: OutageSpan[];
}

export interface TimeView {
  domain: TimeDomain;
  axis: TimeAxis;
  cadenceMs: number;
  frame: Frame;
  outages: Outages;
  /** most points a series may hand the chart: its plot's pixel columns, at most `cap` */
  maxPoints: number;
}

/**
 * `slot`: this chart's place in the staggered redraw of a frame (see
 * useStaggeredFrame); `box`: where the chart is (useChartBox). A chart off
 * screen is not redrawn, and one on screen no more often than its view moves
 * by REDRAW_PX pixel columns (FRAME_MS at the least). `cap`: its own
 * point budget.
 */
export function useTimeView(slot: number, box: ChartBox, cap: number): TimeView {
  const { spanMs, frozen } = useView();
  // Only what the view is made of: the header's counters in each `target` event do not redraw a chart.
  const windowMs = useChannelSelect("target", (t) => t?.windowMs ?? DEFAULT_WINDOW_MS);
  const liveCadenceMs = useChannelSelect("target", (t) => t?.sampleMs ?? DEFAULT_SAMPLE_MS);
  const cadenceMs = frozen?.cadenceMs ?? liveCadenceMs;
  const statusSince = useChannelSelect("target", (t) => t?.statusSince ?? 0);
  const maxPoints = pixelBudget(box.width, cap, PLOT_INSET);
  const liveSpan = Math.min(spanMs ?? Infinity, windowMs);
  const everyMs = Math.max(FRAME_MS, Math.round(redrawMs(liveSpan, plotPixels(box.width, cap, PLOT_INSET))));
  const liveFrame = useStaggeredFrame(slot, frozen !== null || !box.visible, everyMs);
  const liveOutages = useChannel("outages");
  const { restarts: liveRestarts } = useChannel("settings");
  const frame = frozen?.frame ?? liveFrame;
  const outages = frozen?.outages ?? liveOutages;
  const restarts = frozen?.restarts ?? liveRestarts;
  const newest = Math.max(frame.ticks.at(-1)?.t ?? 0, frame.io.at(-1)?.t ?? 0) || statusSince;
  const from = frozen ? frozen.from : null;
  const to = frozen ? frozen.to : null;

  const view = useMemo(() => {
    const domain = from !== null && to !== null ? { from, to } : viewDomain(newest, spanMs, windowMs);
    return { domain, xDomain: [domain.from, domain.to] as [number, number], xTicks: timeTicks(domain.from, domain.to, 6) };
  }, [from, to, newest, spanMs, windowMs]);
  const marks = useMemo(() => restartMarks(restarts, view.domain), [restarts, view.domain]);
  const outageAreas = useMemo(() => outageSpans(outages, view.domain), [outages, view.domain]);
  const axis = useMemo(() => ({ xDomain: view.xDomain, xTicks: view.xTicks, marks, outageAreas }), [view, marks, outageAreas]);
  return { domain: view.domain, axis, cadenceMs, frame, outages, maxPoints };
}

/**
 * The query runs to list: live, or those of the frozen copy that overlap its
 * range. `all`: every run of the copy, for looking one up by id.
 */
export function useViewQueries(): QueriesPayload & { all: QueriesPayload["queries"]; range: TimeDomain | null } {
  const live = useChannel("queries");
  const { frozen } = useView();
  const frozenQueries = useMemo(
    () =>
      frozen
        ? {
            ...frozen.queries,
            queries: runsInRange(frozen.queries.queries, frozen),
            all: frozen.queries.queries,
            range: { from: frozen.from, to: frozen.to },
          }
        : null,
    [frozen],
  );
  const liveQueries = useMemo(() => ({ ...live, all: live.queries, range: null }), [live]);
  return frozenQueries ?? liveQueries;
}

const RESTART_LABEL_STYLE = { fontSize: 10, fill: RESTART_COLOR } as const;

/**
 * Restart lines and outage shading, as direct children of a chart (a plain
 * function, not a component: recharts finds its children by type).
 */
export function timeMarks({ marks, outageAreas }: TimeAxis, yAxisId?: string) {
  return [
    ...outageAreas.map((a) => (
      <ReferenceArea
        key={`o${a.from}`}
        x1={a.from}
        x2={a.to}
        yAxisId={yAxisId}
        fill={OUTAGE_FILL}
        fillOpacity={0.5}
        ifOverflow="hidden"
        data-testid="outage-mark"
      />
    )),
    ...marks.map((m) => (
      <ReferenceLine
        key={`r${m.at}`}
        x={m.at}
        yAxisId={yAxisId}
        stroke={RESTART_COLOR}
        strokeDasharray="4 3"
        strokeWidth={1.5}
        ifOverflow="hidden"
        data-testid="restart-mark"
        label={m.label ? { value: m.label, position: "insideTopRight", style: RESTART_LABEL_STYLE } : undefined}
      />
    )),
  ];
}
