"use client";
import { memo, useMemo } from "react";
import { CartesianGrid, ComposedChart, ReferenceDot, XAxis, YAxis } from "recharts";
import type { PanelTarget } from "@/lib/client/panel-target";
import { LINE_MAX_POINTS, workersChart, type WorkerTurnoverMark, type WorkersRow } from "@/lib/view/activity";
import { workersNow } from "@/lib/view/header";
import { noSamples } from "@/lib/view/empty";
import { useChannel } from "@/lib/client/hooks";
import { configuredWorkers } from "@/lib/model/window/settings";
import { Glossed } from "@/components/ui/term";
import { Panel } from "@/components/ui/panel";
import { valueAxis } from "@/lib/view/scale";
import { useChartBox } from "./chart-box";
import { ChartBody, Legend } from "./chart-frame";
import { SeriesBand, SeriesLine, type BandSpec, type LineSpec, type SeriesSpec } from "./series-layer";
import { PointerSurface, Pointed } from "./pointer-layer";
import { timeMarks, useTimeView, type TimeAxis } from "./time-view";
import { CHART_MARGIN, CHART_STYLE, GRID_STROKE, Y_LABELS, countTick, timeXAxis, valueYAxis } from "./theme";

const COLORS = { configured: "#94a3b8", alive: "#0f766e", busy: "#f59e0b", launched: "#16a34a", exited: "#dc2626" } as const;
const LINES = [
  { label: "alive", color: COLORS.alive, line: true },
  { label: "busy reading", color: COLORS.busy, line: true },
];
/** 18: io_workers is the count; 19: the pool's bounds, and its launches and exits. */
const LEGEND_18 = [{ label: "configured (io_workers)", color: COLORS.configured, dashed: true }, ...LINES];
const LEGEND_19 = [
  { label: "pool (io_min_workers..io_max_workers)", color: COLORS.configured },
  ...LINES,
  { label: "launched", color: COLORS.launched },
  { label: "exited", color: COLORS.exited },
];

/** Redraw slot within a frame (see useStaggeredFrame). */
const SLOT = 1;

export const WorkersPanel = memo(function WorkersPanel({ target }: { target: PanelTarget }) {
  const box = useChartBox();
  const view = useTimeView(SLOT, box, LINE_MAX_POINTS);
  const chart = useMemo(
    () => workersChart(view.frame.ticks, view.domain, view.cadenceMs, view.outages, view.maxPoints),
    [view.frame.ticks, view.domain, view.cadenceMs, view.outages, view.maxPoints],
  );
  const empty =
    chart.rows.length === 0
      ? noSamples(target, "No samples in view yet")
      : !chart.any
        ? target.ioMethod === "sync" || target.ioMethod === "io_uring"
          ? `No io workers, by design: io_method = ${target.ioMethod}; io workers exist only with io_method = worker`
          : `No io workers: io_method is ${target.ioMethod ?? "unknown"}; io workers exist only with io_method = worker`
        : null;
  return (
    <Panel
      title="I/O workers"
      subtitle={
        <Glossed
          text={
            chart.pool
              ? "io workers alive within the pool's io_min_workers..io_max_workers (it grows on demand), how many are busy reading, and each launch and exit"
              : "io workers alive against io_workers, and how many are busy reading"
          }
        />
      }
      actions={<WorkersNowText ioMethod={target.ioMethod} up={target.status === "up"} />}
    >
      <div
        ref={box.ref}
        data-testid="io-workers-chart"
        data-any={chart.any}
        data-configured={chart.configuredNow ?? ""}
        data-pool={chart.pool}
        data-launched={chart.turnover.reduce((n, m) => n + m.launched, 0)}
      >
        <Legend items={chart.pool ? LEGEND_19 : LEGEND_18} />
        <ChartBody empty={empty}>
          <WorkersPlot rows={chart.rows} turnover={chart.turnover} max={chart.maxConfigured} axis={view.axis} />
        </ChartBody>
      </div>
    </Panel>
  );
});

/**
 * The io workers busy and alive of the sample the header shows (the same
 * figures, from the same sample), beside io_workers as the settings say now:
 * a reload is seen here as soon as in the settings table.
 */
function WorkersNowText({ ioMethod, up }: { ioMethod: string | null; up: boolean }) {
  const latest = useChannel("latest");
  const configured = configuredWorkers(useChannel("settings").settings);
  const now = workersNow(latest, ioMethod, configured);
  if (!up) return <span className="text-slate-500">now: not sampled (the target is down)</span>;
  return (
    <span
      className="text-slate-500"
      data-testid="panel-workers-now"
      data-busy={now.busy ?? ""}
      data-alive={now.alive ?? ""}
      data-configured={configured ?? ""}
    >
      now: {now.text}
    </span>
  );
}

const POOL_BAND: BandSpec<WorkersRow> = {
  key: "band",
  color: COLORS.configured,
  fillOpacity: 0.25,
  low: (r) => r.band?.[0],
  high: (r) => r.band?.[1],
  curve: "stepAfter",
};
const CONFIGURED: LineSpec<WorkersRow> = {
  key: "configured",
  name: "configured",
  color: COLORS.configured,
  value: (r) => r.configured,
  dash: "5 3",
  curve: "stepAfter",
};
const ALIVE: LineSpec<WorkersRow> = {
  key: "alive",
  name: "alive",
  color: COLORS.alive,
  value: (r) => r.alive,
  width: 2,
  curve: "stepAfter",
};
const BUSY: LineSpec<WorkersRow> = { key: "busy", name: "busy", color: COLORS.busy, value: (r) => r.busy };
const TOOLTIP_SERIES: SeriesSpec<WorkersRow>[] = [
  { key: "pool", name: "pool", color: COLORS.configured, value: (r) => r.band?.[1], format: (_, r) => `${r.band?.[0]}..${r.band?.[1]}` },
  CONFIGURED,
  ALIVE,
  BUSY,
];

const WorkersPlot = memo(function WorkersPlot({
  rows,
  turnover,
  max,
  axis,
}: {
  rows: WorkersRow[];
  turnover: WorkerTurnoverMark[];
  max: number;
  axis: TimeAxis;
}) {
  const yAxis = useMemo(() => valueAxis(max), [max]);
  return (
    <Pointed rows={rows} series={TOOLTIP_SERIES} domain={axis.xDomain}>
      <ComposedChart style={CHART_STYLE} responsive margin={CHART_MARGIN}>
        <CartesianGrid stroke={GRID_STROKE} vertical={false} />
        <XAxis {...timeXAxis(axis)} />
        <YAxis {...valueYAxis(yAxis, { label: Y_LABELS.workers, format: countTick, whole: true })} />
        {timeMarks(axis)}
        <SeriesBand rows={rows} band={POOL_BAND} />
        <SeriesLine rows={rows} line={ALIVE} />
        {/* over alive, dashed: when they are equal both still show */}
        <SeriesLine rows={rows} line={CONFIGURED} />
        <SeriesLine rows={rows} line={BUSY} />
        {turnover.map((m) => (
          <ReferenceDot
            key={m.t}
            x={m.t}
            y={m.alive}
            r={3.5}
            fill={m.launched ? COLORS.launched : COLORS.exited}
            stroke="none"
            ifOverflow="hidden"
            data-testid={m.launched ? "worker-launch" : "worker-exit"}
          />
        ))}
        <PointerSurface />
      </ComposedChart>
    </Pointed>
  );
});
