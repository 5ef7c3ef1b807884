"use client";
import { memo, useMemo } from "react";
import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { throughputChart, type ThroughputRow } from "@/lib/client/charts/throughput";
import { formatNumber } from "@/lib/format";
import { sizeAxis, type SizeAxis } from "@/lib/client/charts/scale";
import { Panel } from "@/components/ui/panel";
import { ChartBody, Legend } from "./chart-frame";
import { timeMarks, useTimeView, type TimeAxis } from "./time-view";
import {
  AXIS_LINE, AXIS_TICK, CHART_MARGIN, CHART_MARGIN_RIGHT_AXIS, CHART_STYLE, GRID_STROKE, SMALL_CHART_STYLE, TOOLTIP_STYLE, Y_LABELS, Y_WIDTH,
  ZERO_AUTO_DOMAIN, countTick, decimalTick, timeTick, tooltipTime,
} from "./theme";

const COLORS = { mb: "#2563eb", reads: "#64748b", kb: "#0d9488", limit: "#f59e0b" } as const;
const RATE_LEGEND = [
  { label: "MB/s read", color: COLORS.mb, line: true },
  { label: "reads/s (right axis)", color: COLORS.reads, dashed: true },
];
const LIMIT_LABEL = { position: "insideTopLeft", style: { fontSize: 10, fill: "#b45309" } } as const;

/** Redraw slot within a frame (see useStaggeredFrame). */
const SLOT = 2;

/** limitKb: io_combine_limit in force (combineLimitKb), null when unknown. */
export const ThroughputPanel = memo(function ThroughputPanel({ statIo, limitKb }: { statIo: boolean; limitKb: number | null }) {
  const view = useTimeView(SLOT);
  const chart = useMemo(() => throughputChart(view.frame.io, view.domain, view.outages), [view.frame.io, view.domain, view.outages]);
  const kbAxis = useMemo(() => sizeAxis(Math.max(chart.maxReadKb, limitKb ?? 0, 16)), [chart.maxReadKb, limitKb]);
  const empty = !statIo
    ? "This server has no pg_stat_io (PostgreSQL 16+)"
    : chart.rows.length === 0
      ? "No pg_stat_io sample in view yet (one a second, as deltas)"
      : !chart.anyReads
        ? "No reads completed in view: nothing read from disk or the OS cache"
        : null;
  return (
    <Panel
      title="Read throughput"
      subtitle="pg_stat_io deltas (all backends, relations), per second: counted when a statement ends, not while it runs"
      actions={chart.avgReadKb !== null ? <span className="text-slate-500">avg read {formatNumber(chart.avgReadKb)} kB in view</span> : null}
    >
      <div data-testid="throughput-chart" data-reads={chart.anyReads}>
        <Legend items={RATE_LEGEND} />
        <ChartBody empty={empty}>
          <RatePlot rows={chart.rows} axis={view.axis} />
        </ChartBody>
        <h3 className="mt-2 text-xs font-medium text-slate-700">
          Average read size (kB): how well reads are combined{limitKb !== null ? `; io_combine_limit is ${formatNumber(limitKb)} kB` : ""}
        </h3>
        <ChartBody empty={empty}>
          <SizePlot rows={chart.rows} axis={view.axis} limitKb={limitKb} kbAxis={kbAxis} />
        </ChartBody>
      </div>
    </Panel>
  );
});

const RatePlot = memo(function RatePlot({ rows, axis }: { rows: ThroughputRow[]; axis: TimeAxis }) {
  return (
    <LineChart data={rows} style={CHART_STYLE} responsive margin={CHART_MARGIN_RIGHT_AXIS}>
      <CartesianGrid stroke={GRID_STROKE} vertical={false} />
      <XAxis dataKey="t" type="number" domain={axis.xDomain} ticks={axis.xTicks} tickFormatter={timeTick} tick={AXIS_TICK} axisLine={AXIS_LINE} allowDataOverflow />
      <YAxis yAxisId="mb" domain={ZERO_AUTO_DOMAIN} tickFormatter={decimalTick} tick={AXIS_TICK} width={Y_WIDTH} label={Y_LABELS.mbs} />
      <YAxis yAxisId="n" orientation="right" domain={ZERO_AUTO_DOMAIN} tickFormatter={countTick} tick={AXIS_TICK} width={56} label={Y_LABELS.readsRight} />
      <Tooltip labelFormatter={tooltipTime} formatter={decimalTooltip} contentStyle={TOOLTIP_STYLE} isAnimationActive={false} />
      {timeMarks(axis, "mb")}
      <Line yAxisId="mb" dataKey="mbPerSec" name="MB/s" type="linear" stroke={COLORS.mb} strokeWidth={1.5} dot={false} activeDot={false} isAnimationActive={false} />
      <Line yAxisId="n" dataKey="readsPerSec" name="reads/s" type="linear" stroke={COLORS.reads} strokeDasharray="4 2" strokeWidth={1} dot={false} activeDot={false} isAnimationActive={false} />
    </LineChart>
  );
});

const decimalTooltip = (value: unknown, name: unknown) => [typeof value === "number" ? formatNumber(value) : String(value), String(name)] as [string, string];

const SizePlot = memo(function SizePlot({ rows, axis, limitKb, kbAxis }: { rows: ThroughputRow[]; axis: TimeAxis; limitKb: number | null; kbAxis: SizeAxis }) {
  return (
    <LineChart data={rows} style={SMALL_CHART_STYLE} responsive margin={CHART_MARGIN}>
      <CartesianGrid stroke={GRID_STROKE} vertical={false} />
      <XAxis dataKey="t" type="number" domain={axis.xDomain} ticks={axis.xTicks} tickFormatter={timeTick} tick={AXIS_TICK} axisLine={AXIS_LINE} allowDataOverflow />
      <YAxis domain={kbAxis.domain} ticks={kbAxis.ticks} tickFormatter={countTick} tick={AXIS_TICK} width={Y_WIDTH} label={Y_LABELS.kb} />
      <Tooltip labelFormatter={tooltipTime} formatter={decimalTooltip} contentStyle={TOOLTIP_STYLE} isAnimationActive={false} />
      {timeMarks(axis)}
      {limitKb !== null ? <ReferenceLine y={limitKb} stroke={COLORS.limit} strokeDasharray="3 3" label={{ value: `io_combine_limit ${limitKb} kB`, ...LIMIT_LABEL }} /> : null}
      <Line dataKey="avgReadKb" name="kB per read" type="linear" stroke={COLORS.kb} strokeWidth={1.5} dot={false} activeDot={false} isAnimationActive={false} />
    </LineChart>
  );
});
