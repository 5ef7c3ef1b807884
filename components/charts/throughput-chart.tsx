"use client";
import { memo, useMemo } from "react";
import { CartesianGrid, LineChart, ReferenceLine, XAxis, YAxis } from "recharts";
import type { PanelTarget } from "@/lib/client/panel-target";
import { STAGGER_MS, useChannel, useLater } from "@/lib/client/hooks";
import { IO_MAX_POINTS, readRateNowText, throughputChart, type LiveRow, type ThroughputRow } from "@/lib/view/throughput";
import { liveReadRate } from "@/lib/model/window/read-rate";
import { blockSizeOf } from "@/lib/model/window/settings";
import { noSamples } from "@/lib/view/empty";
import { formatBytes, formatClock, formatNumber } from "@/lib/format";
import { sizeAxis, valueAxis, type SizeAxis } from "@/lib/view/scale";
import { Panel } from "@/components/ui/panel";
import { Glossed } from "@/components/ui/term";
import { useChartBox } from "./chart-box";
import { ChartBody, Legend } from "./chart-frame";
import { SeriesLine, type LineSpec, type SeriesSpec } from "./series-layer";
import { PointerSurface, Pointed } from "./pointer-layer";
import { timeMarks, useTimeView, type TimeAxis } from "./time-view";
import {
  CHART_MARGIN,
  CHART_MARGIN_RIGHT_AXIS,
  CHART_STYLE,
  GRID_STROKE,
  SMALL_CHART_STYLE,
  Y_LABELS,
  countTick,
  decimalTick,
  timeXAxis,
  valueYAxis,
} from "./theme";

const COLORS = { live: "#2563eb", counted: "#64748b", kb: "#0d9488", limit: "#f59e0b" } as const;
const RATE_LEGEND = [
  { label: "read rate now, MB/s: estimated from pg_aios block positions of the running scans", color: COLORS.live, line: true },
  { label: "MB counted by pg_stat_io, landing when a statement ends (right axis)", color: COLORS.counted },
];
const LIMIT_LABEL = { position: "insideTopLeft", style: { fontSize: 10, fill: "#b45309" } } as const;

/** Redraw slot within a frame (see useStaggeredFrame). */
const SLOT = 2;

/** The "now" of the header's sample, redrawn with it: text only, so that the chart is not. */
function ReadRateNow() {
  const latest = useChannel("latest");
  const { queries } = useChannel("queries");
  const { settings } = useChannel("settings");
  const blockSize = blockSizeOf(settings);
  return (
    <span data-testid="read-rate-now" data-bytes-per-sec={liveReadRate(queries, blockSize).bytesPerSec}>
      now {readRateNowText(queries, latest, blockSize, (b) => `${formatBytes(b)}/s`)}
    </span>
  );
}

/** limitKb: io_combine_limit in force (combineLimitKb), null when unknown. */
export const ThroughputPanel = memo(function ThroughputPanel({ target, limitKb }: { target: PanelTarget; limitKb: number | null }) {
  const box = useChartBox();
  const view = useTimeView(SLOT, box, IO_MAX_POINTS);
  const chart = useMemo(
    () => throughputChart(view.frame.io, view.frame.rates, view.domain, view.outages, view.maxPoints),
    [view.frame.io, view.frame.rates, view.domain, view.outages, view.maxPoints],
  );
  const kbAxis = useMemo(() => sizeAxis(Math.max(chart.maxReadKb, limitKb ?? 0, 16)), [chart.maxReadKb, limitKb]);
  const statIo = target.capabilities?.statIo ?? true;
  const empty = !statIo
    ? "This server has no pg_stat_io (PostgreSQL 16+)"
    : chart.rows.length === 0 && chart.live.length === 0
      ? noSamples(target, "No pg_stat_io sample in view yet (one a second, as deltas)")
      : !chart.anyReads && !chart.live.some((r) => (r.mbPerSec ?? 0) > 0)
        ? "No reads in view: nothing read from disk or the OS cache"
        : null;
  return (
    <Panel
      title="Read throughput"
      subtitle={
        <Glossed
          text={`The rate is live: blocks the running scans cover per second (pg_aios block positions) x block_size${chart.liveSince ? `, since this page opened at ${formatClock(chart.liveSince)}` : ""}. pg_stat_io counts a statement's reads only when it ends: its dots are amounts landing, not a rate.`}
        />
      }
      actions={
        <span className="text-slate-600">
          <ReadRateNow />
          {chart.avgReadKb !== null ? ` · avg read ${formatNumber(chart.avgReadKb)} kB in view` : ""}
        </span>
      }
    >
      <div ref={box.ref} data-testid="throughput-chart" data-reads={chart.anyReads}>
        <Legend items={RATE_LEGEND} />
        <ChartBody empty={empty}>
          <RatePlot counted={chart.counted} live={chart.live} axis={view.axis} />
        </ChartBody>
        <h3 className="mt-2 text-xs font-medium text-slate-700">
          Average read size (kB, pg_stat_io): how well reads are combined
          {limitKb !== null ? `; io_combine_limit is ${formatNumber(limitKb)} kB` : ""}
        </h3>
        <ChartBody empty={empty}>
          <LaterSizePlot rows={chart.rows} axis={view.axis} limitKb={limitKb} kbAxis={kbAxis} />
        </ChartBody>
      </div>
    </Panel>
  );
});

const LIVE_LINE: LineSpec<LiveRow> = {
  key: "mbPerSec",
  name: "read rate now (MB/s)",
  color: COLORS.live,
  value: (r) => r.mbPerSec,
  yAxisId: "mb",
};
const COUNTED_DOTS: LineSpec<ThroughputRow> = {
  key: "mbCounted",
  name: "MB counted by pg_stat_io",
  color: COLORS.counted,
  value: (r) => r.mbCounted,
  yAxisId: "counted",
  width: 0,
  dot: 2.5,
};
type RateRow = { t: number; mbPerSec?: number | null; mbCounted?: number | null };
const decimal = (v: number) => formatNumber(v);
const RATE_TOOLTIP: SeriesSpec<RateRow>[] = [
  { key: LIVE_LINE.key, name: LIVE_LINE.name, color: LIVE_LINE.color, value: (r) => r.mbPerSec, format: decimal },
  { key: COUNTED_DOTS.key, name: COUNTED_DOTS.name, color: COUNTED_DOTS.color, value: (r) => r.mbCounted, format: decimal },
];

/** Both series' rows by time, for the tooltip (each is drawn from its own). */
function byTime(live: readonly LiveRow[], counted: readonly ThroughputRow[]): RateRow[] {
  const rows = new Map<number, RateRow>();
  for (const r of live) rows.set(r.t, { t: r.t, mbPerSec: r.mbPerSec });
  for (const r of counted) rows.set(r.t, { ...rows.get(r.t), t: r.t, mbCounted: r.mbCounted });
  return [...rows.values()].sort((a, b) => a.t - b.t);
}

const RatePlot = memo(function RatePlot({ counted, live, axis }: { counted: ThroughputRow[]; live: LiveRow[]; axis: TimeAxis }) {
  const rows = useMemo(() => byTime(live, counted), [live, counted]);
  const mbAxis = useMemo(
    () =>
      valueAxis(
        live.reduce((m, r) => Math.max(m, r.mbPerSec ?? 0), 0),
        RATE_AXIS,
      ),
    [live],
  );
  const countedAxis = useMemo(
    () =>
      valueAxis(
        counted.reduce((m, r) => Math.max(m, r.mbCounted ?? 0), 0),
        COUNTED_AXIS,
      ),
    [counted],
  );
  return (
    <Pointed rows={rows} series={RATE_TOOLTIP} domain={axis.xDomain}>
      <LineChart style={CHART_STYLE} responsive margin={CHART_MARGIN_RIGHT_AXIS}>
        <CartesianGrid stroke={GRID_STROKE} vertical={false} />
        <XAxis {...timeXAxis(axis)} />
        <YAxis {...valueYAxis(mbAxis, { label: Y_LABELS.mbs, format: decimalTick, id: "mb" })} />
        <YAxis {...valueYAxis(countedAxis, { label: Y_LABELS.mbCountedRight, format: countTick, id: "counted", right: true, width: 56 })} />
        {timeMarks(axis, "mb")}
        <SeriesLine rows={live} line={LIVE_LINE} />
        <SeriesLine rows={counted} line={COUNTED_DOTS} />
        <PointerSurface />
      </LineChart>
    </Pointed>
  );
});

/** MB/s: round steps its one-decimal labels show, from 1 up; MB counted: whole MB (its labels are whole), from 1 up. */
const RATE_AXIS = { least: 1, decimals: 1 } as const;
const COUNTED_AXIS = { least: 1 } as const;

type SizePlotProps = { rows: ThroughputRow[]; axis: TimeAxis; limitKb: number | null; kbAxis: SizeAxis };

/** The size plot redraws a stagger after the rate plot above it, in a task of its own (useLater). */
function LaterSizePlot(props: SizePlotProps) {
  const { rows, axis, limitKb, kbAxis } = props;
  const now = useMemo(() => ({ rows, axis, limitKb, kbAxis }), [rows, axis, limitKb, kbAxis]);
  return <SizePlot {...useLater(now, STAGGER_MS, SLOT + 1)} />;
}

const SizePlot = memo(function SizePlot({ rows, axis, limitKb, kbAxis }: SizePlotProps) {
  return (
    <Pointed rows={rows} series={SIZE_TOOLTIP} domain={axis.xDomain}>
      <LineChart style={SMALL_CHART_STYLE} responsive margin={CHART_MARGIN}>
        <CartesianGrid stroke={GRID_STROKE} vertical={false} />
        <XAxis {...timeXAxis(axis)} />
        <YAxis {...valueYAxis(kbAxis, { label: Y_LABELS.kb, format: countTick })} />
        {timeMarks(axis)}
        {limitKb !== null ? (
          <ReferenceLine
            y={limitKb}
            stroke={COLORS.limit}
            strokeDasharray="3 3"
            label={{ value: `io_combine_limit ${limitKb} kB`, ...LIMIT_LABEL }}
          />
        ) : null}
        <SeriesLine rows={rows} line={SIZE_LINE} />
        <PointerSurface />
      </LineChart>
    </Pointed>
  );
});

/** Reads land in few seconds: a dot each, so a lone second still shows. */
const SIZE_LINE: LineSpec<ThroughputRow> = {
  key: "avgReadKb",
  name: "kB per read",
  color: COLORS.kb,
  value: (r) => r.avgReadKb,
  format: decimal,
  dot: 1.5,
};
const SIZE_TOOLTIP = [SIZE_LINE];
