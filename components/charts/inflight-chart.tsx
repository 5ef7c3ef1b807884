"use client";
import { memo, useCallback, useMemo, useRef, useState } from "react";
import { CartesianGrid, ComposedChart, ReferenceArea, XAxis, YAxis } from "recharts";
import { IN_FLIGHT_MAX_POINTS, inFlightChart, stateDataKey, type AioStateKey, type InFlightRow } from "@/lib/view/inflight";
import type { PanelTarget } from "@/lib/client/panel-target";
import { formatBytes } from "@/lib/format";
import { useChannelSelect } from "@/lib/client/hooks";
import { aiosReadEvery } from "@/lib/view/header";
import { inFlightEmpty } from "@/lib/view/empty";
import { Glossed } from "@/components/ui/term";
import { sizeAxis, type SizeAxis, valueAxis } from "@/lib/view/scale";
import { Panel } from "@/components/ui/panel";
import { dragRange } from "@/lib/view/view";
import { useChartBox } from "./chart-box";
import { ChartBody, Legend, type LegendEntry } from "./chart-frame";
import { SeriesLine, StackedAreas, type LineSpec, type SeriesSpec } from "./series-layer";
import { PointerSurface, Pointed, type PointerActions } from "./pointer-layer";
import { useTimeView, useView, timeMarks, type TimeAxis } from "./time-view";
import {
  BYTES_COLOR,
  CHART_MARGIN_RIGHT_AXIS,
  CHART_STYLE,
  SELECTION_FILL,
  GRID_STROKE,
  STATE_COLORS,
  SYNC_COLOR,
  Y_LABELS,
  countTick,
  kbTick,
  timeXAxis,
  valueYAxis,
} from "./theme";

/** Redraw slot within a frame (see useStaggeredFrame). */
const SLOT = 0;

interface Selection {
  from: number;
  to: number;
}

/**
 * Drag across the chart to select a range: the selection is drawn while the
 * button is held, and zooms (freezing the view) when it is released.
 */
function useDragZoom(minMs: number) {
  const { zoom } = useView();
  const [selection, setSelection] = useState<Selection | null>(null);
  const drag = useRef<Selection | null>(null);
  const update = (next: Selection | null) => {
    drag.current = next;
    setSelection(next);
  };
  const down = useCallback((t: number) => update({ from: t, to: t }), []);
  const move = useCallback((t: number) => {
    if (drag.current && t !== drag.current.to) update({ from: drag.current.from, to: t });
  }, []);
  const up = useCallback(() => {
    const d = drag.current;
    update(null);
    const range = d && dragRange(d.from, d.to, minMs);
    if (range) zoom(range);
  }, [zoom, minMs]);
  const leave = useCallback(() => update(null), []);
  const handlers = useMemo((): PointerActions => ({ down, move, up, leave }), [down, move, up, leave]);
  return { selection, handlers };
}

export const InFlightPanel = memo(function InFlightPanel({ target }: { target: PanelTarget }) {
  const box = useChartBox();
  const view = useTimeView(SLOT, box, IN_FLIGHT_MAX_POINTS);
  const { selection, handlers } = useDragZoom(2 * view.cadenceMs);
  const chart = useMemo(
    () => inFlightChart(view.frame.ticks, view.domain, view.cadenceMs, view.outages, view.maxPoints),
    [view.frame.ticks, view.domain, view.cadenceMs, view.outages, view.maxPoints],
  );
  // Sizes in powers of two (128 kB reads): ticks that read as whole reads.
  const kbAxis = useMemo(() => sizeAxis(Math.max(128, chart.maxKb)), [chart.maxKb]);
  const empty = inFlightEmpty(target, chart.points);
  // The same figure as the header's cost line: pg_aios's own interval, not the samples'.
  const aiosIntervalMs = useChannelSelect("target", (t) => t?.cost.aios.intervalMs ?? null);
  const aiosSkipped = useChannelSelect("target", (t) => t?.cost.aios.skipped ?? 0);
  const aiosEvery = aiosReadEvery(view.cadenceMs, { intervalMs: aiosIntervalMs, skipped: aiosSkipped });

  return (
    <Panel
      title="In-flight async I/O"
      subtitle={
        <span data-testid="inflight-subtitle">
          <Glossed
            text={`Reads in flight: async ones stacked by state, synchronous ones apart; pg_aios handles, ${aiosEvery} (a gap: not read in that sample).${chart.max > 0 ? ` At most ${chart.max} async at once in view.` : ""} Drag to zoom.`}
          />
        </span>
      }
    >
      <div
        ref={box.ref}
        data-testid="inflight-chart"
        data-points={chart.points}
        data-max={chart.max}
        data-sync-max={chart.maxSync}
        data-rows={chart.rows.length}
        data-first={chart.rows[0]?.t ?? ""}
        data-last={chart.rows.at(-1)?.t ?? ""}
        data-from={view.domain.from}
        data-to={view.domain.to}
      >
        <Legend items={legendFor(chart.states)} />
        <ChartBody empty={empty}>
          <div className="cursor-crosshair select-none">
            <InFlightPlot
              rows={chart.rows}
              states={chart.states}
              max={Math.max(chart.max, chart.maxSync)}
              axis={view.axis}
              kbAxis={kbAxis}
              selection={selection}
              handlers={handlers}
            />
          </div>
        </ChartBody>
      </div>
    </Panel>
  );
});

function legendFor(states: readonly AioStateKey[]): LegendEntry[] {
  return [
    ...states.map((s) => ({ label: s.toLowerCase().replace(/_/g, " "), color: STATE_COLORS[s], term: s === "OTHER" ? undefined : s })),
    { label: "synchronous (f_sync), not stacked", color: SYNC_COLOR, dashed: true },
    { label: "size of async reads in flight (right axis)", color: BYTES_COLOR, line: true },
  ];
}

const SYNC_LINE: LineSpec<InFlightRow> = {
  key: "sync",
  name: "synchronous (f_sync)",
  color: SYNC_COLOR,
  value: (r) => r.sync,
  dash: "4 2",
  yAxisId: "n",
};
const SIZE_LINE: LineSpec<InFlightRow> = {
  key: "kb",
  name: "size in flight",
  color: BYTES_COLOR,
  value: (r) => r.kb,
  format: (kb) => formatBytes(kb * 1024),
  width: 1,
  yAxisId: "b",
};

interface PlotProps {
  rows: InFlightRow[];
  states: AioStateKey[];
  /** the most handles at once, async stacked or synchronous */
  max: number;
  axis: TimeAxis;
  kbAxis: SizeAxis;
  selection: Selection | null;
  handlers: PointerActions;
}

const InFlightPlot = memo(function InFlightPlot({ rows, states, max, axis, kbAxis, selection, handlers }: PlotProps) {
  const stacked = useMemo(
    () =>
      states.map((st): SeriesSpec<InFlightRow> => ({
        key: stateDataKey(st),
        name: `async ${st.toLowerCase()}`,
        color: STATE_COLORS[st],
        value: (r) => r[stateDataKey(st)],
      })),
    [states],
  );
  // The stack top first, as the areas read, then the two lines.
  const tooltip = useMemo(() => [...[...stacked].reverse(), SYNC_LINE, SIZE_LINE], [stacked]);
  const countAxis = useMemo(() => valueAxis(max), [max]);
  return (
    <Pointed rows={rows} series={tooltip} domain={axis.xDomain} actions={handlers}>
      <ComposedChart style={CHART_STYLE} responsive margin={CHART_MARGIN_RIGHT_AXIS}>
        <CartesianGrid stroke={GRID_STROKE} vertical={false} />
        <XAxis {...timeXAxis(axis)} />
        <YAxis {...valueYAxis(countAxis, { label: Y_LABELS.handles, format: countTick, id: "n", whole: true })} />
        <YAxis {...valueYAxis(kbAxis, { label: Y_LABELS.bytesRight, format: kbTick, id: "b", right: true, width: 64 })} />
        {timeMarks(axis, "n")}
        <StackedAreas rows={rows} series={stacked} yAxisId="n" fillOpacity={0.85} />
        <SeriesLine rows={rows} line={SYNC_LINE} />
        <SeriesLine rows={rows} line={SIZE_LINE} />
        {selection ? (
          <ReferenceArea
            yAxisId="n"
            x1={Math.min(selection.from, selection.to)}
            x2={Math.max(selection.from, selection.to)}
            fill={SELECTION_FILL}
            fillOpacity={0.25}
            ifOverflow="hidden"
            data-testid="zoom-selection"
          />
        ) : null}
        <PointerSurface />
      </ComposedChart>
    </Pointed>
  );
});
