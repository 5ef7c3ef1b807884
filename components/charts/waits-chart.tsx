"use client";
import { memo, useMemo } from "react";
import { AreaChart, CartesianGrid, XAxis, YAxis } from "recharts";
import { STACK_MAX_POINTS, waitsChart, type WaitSeries, type WaitsRow } from "@/lib/view/activity";
import type { PanelTarget } from "@/lib/client/panel-target";
import { noSamples } from "@/lib/view/empty";
import { Panel } from "@/components/ui/panel";
import { Glossed } from "@/components/ui/term";
import { valueAxis } from "@/lib/view/scale";
import { useChartBox } from "./chart-box";
import { ChartBody, Legend } from "./chart-frame";
import { StackedAreas, type SeriesSpec } from "./series-layer";
import { PointerSurface, Pointed } from "./pointer-layer";
import { timeMarks, useTimeView, type TimeAxis } from "./time-view";
import { CHART_MARGIN, CHART_STYLE, GRID_STROKE, Y_LABELS, countTick, waitColor, timeXAxis, valueYAxis } from "./theme";

/** Redraw slot within a frame (see useStaggeredFrame). */
const SLOT = 4;

export const WaitsPanel = memo(function WaitsPanel({ target }: { target: PanelTarget }) {
  const box = useChartBox();
  const view = useTimeView(SLOT, box, STACK_MAX_POINTS);
  const chart = useMemo(
    () => waitsChart(view.frame.ticks, view.domain, view.cadenceMs, view.outages, view.maxPoints),
    [view.frame.ticks, view.domain, view.cadenceMs, view.outages, view.maxPoints],
  );
  const empty =
    chart.rows.length === 0
      ? noSamples(target, "No samples in view yet")
      : chart.series.length === 0
        ? "No active backend in view: nothing is running"
        : null;
  return (
    <Panel
      title="Wait events of active backends"
      subtitle={
        <Glossed
          text={`What running queries wait on, sampled: IO:AioIoCompletion = waiting for async reads, IO:DataFileRead = reading synchronously, CPU = no wait event${target.ioMethod === "io_uring" ? "; under io_uring, IO:AioIoUringSubmit = handing reads to the kernel, IO:AioIoUringExecution = the kernel executing them" : ""}`}
        />
      }
    >
      <div ref={box.ref} data-testid="waits-chart">
        <Legend items={chart.series.map((s) => ({ label: s.name, color: waitColor(s.name) }))} />
        <ChartBody empty={empty}>
          <WaitsPlot rows={chart.rows} series={chart.series} max={chart.max} axis={view.axis} />
        </ChartBody>
      </div>
    </Panel>
  );
});

const WaitsPlot = memo(function WaitsPlot({
  rows,
  series,
  max,
  axis,
}: {
  rows: WaitsRow[];
  series: WaitSeries[];
  max: number;
  axis: TimeAxis;
}) {
  // Top of the stack first in the tooltip, as the areas read from top to bottom.
  const specs = useMemo(
    () => series.map((s): SeriesSpec<WaitsRow> => ({ key: s.key, name: s.name, color: waitColor(s.name), value: (row) => row[s.key] })),
    [series],
  );
  const tooltip = useMemo(() => [...specs].reverse(), [specs]);
  const yAxis = useMemo(() => valueAxis(max), [max]);
  return (
    <Pointed rows={rows} series={tooltip} domain={axis.xDomain}>
      <AreaChart style={CHART_STYLE} responsive margin={CHART_MARGIN}>
        <CartesianGrid stroke={GRID_STROKE} vertical={false} />
        <XAxis {...timeXAxis(axis)} />
        <YAxis {...valueYAxis(yAxis, { label: Y_LABELS.backends, format: countTick, whole: true })} />
        {timeMarks(axis)}
        <StackedAreas rows={rows} series={specs} fillOpacity={0.8} />
        <PointerSurface />
      </AreaChart>
    </Pointed>
  );
});
