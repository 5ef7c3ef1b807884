"use client";
// A chart's data, drawn by inflight inside a recharts chart (docs/CHARTS.md,
// rule 11): recharts keeps the axes, grid, tooltip, marks and zoom; these
// draw the series as plain SVG paths from the rows, with the chart's own
// scales. The pointer and tooltip are inflight's too (pointer-layer.tsx).
import { memo, useId, useMemo, type ReactNode } from "react";
import { usePlotArea, useXAxisScale, useYAxisScale } from "recharts";
import { areaPath, dotsPath, linePath, pixelXs, stackLayers, type Curve, type Scale } from "@/lib/view/paths";
import type { TooltipSeries } from "./pointer-layer";

type Row = { t: number };
type Value = number | null | undefined;

/** A series: its key, the name and colour the tooltip lists, its value in a row. */
export type SeriesSpec<R extends Row> = TooltipSeries<R>;

const asScale = (scale: ((v: unknown) => number | undefined) | undefined): Scale | null => (scale ? (v: number) => scale(v) : null);

/** The x pixels of rows at an x scale: worked out once for the series of a chart that share its rows. */
const pixelsOf = new WeakMap<readonly Row[], { scale: unknown; xs: number[] }>();

function xsOf(rows: readonly Row[], scale: unknown, x: Scale): number[] {
  const seen = pixelsOf.get(rows);
  if (seen && seen.scale === scale) return seen.xs;
  const xs = pixelXs(
    rows.map((r) => r.t),
    x,
  );
  pixelsOf.set(rows, { scale, xs });
  return xs;
}

/** The rows' x pixels and the y scale of `yAxisId`, or null before recharts has laid out its axes. */
function usePixels(rows: readonly Row[], yAxisId?: string): { xs: number[]; y: Scale } | null {
  const xScale = useXAxisScale();
  const yScale = useYAxisScale(yAxisId);
  return useMemo(() => {
    const x = asScale(xScale);
    const y = asScale(yScale);
    return x && y ? { xs: xsOf(rows, xScale, x), y } : null;
  }, [rows, xScale, yScale]);
}

/** Clips the series to the plot, as recharts clips its own (allowDataOverflow). */
function Clipped({ children }: { children: ReactNode }) {
  const plot = usePlotArea();
  const id = useId().replace(/:/g, "");
  if (!plot) return null;
  return (
    <g className="inflight-series">
      <defs>
        <clipPath id={`clip-${id}`}>
          <rect x={plot.x} y={plot.y} width={plot.width} height={plot.height} />
        </clipPath>
      </defs>
      <g clipPath={`url(#clip-${id})`}>{children}</g>
    </g>
  );
}

interface StackProps<R extends Row> {
  rows: readonly R[];
  series: readonly SeriesSpec<R>[];
  yAxisId?: string;
  fillOpacity: number;
  curve?: Curve;
}

/** Areas stacked in the order of `series`, each outlined along its top. */
function StackedAreasOf<R extends Row>({ rows, series, yAxisId, fillOpacity, curve = "linear" }: StackProps<R>) {
  const at = usePixels(rows, yAxisId);
  const paths = useMemo(() => {
    if (!at) return [];
    const { xs, y } = at;
    const byKey = new Map(series.map((s) => [s.key, s]));
    return stackLayers(rows, [...byKey.keys()], (row, key) => byKey.get(key)!.value(row)).map((layer) => ({
      key: layer.key,
      color: byKey.get(layer.key)!.color,
      area: areaPath(xs, layer.lows, layer.highs, y, curve),
      top: linePath(xs, layer.highs, y, curve),
    }));
  }, [rows, series, at, curve]);
  return (
    <Clipped>
      {paths.map((p) => (
        <g key={p.key} data-series={p.key}>
          <path className="inflight-area" d={p.area} fill={p.color} fillOpacity={fillOpacity} stroke="none" />
          <path d={p.top} fill="none" stroke={p.color} strokeWidth={1} />
        </g>
      ))}
    </Clipped>
  );
}
export const StackedAreas = memo(StackedAreasOf) as typeof StackedAreasOf;

export interface LineSpec<R extends Row> extends SeriesSpec<R> {
  /** 0: no line, only the dots */
  width?: number;
  dash?: string;
  curve?: Curve;
  yAxisId?: string;
  /** a dot of this radius at each value */
  dot?: number;
}

/** One line of the rows (on its own y axis), broken where its value is null; dots if asked. */
function SeriesLineOf<R extends Row>({ rows, line }: { rows: readonly R[]; line: LineSpec<R> }) {
  const at = usePixels(rows, line.yAxisId);
  const d = useMemo(() => {
    if (!at) return { line: "", dots: "" };
    const { xs, y } = at;
    const values = rows.map((r) => line.value(r) ?? null);
    return { line: line.width === 0 ? "" : linePath(xs, values, y, line.curve), dots: line.dot ? dotsPath(xs, values, y, line.dot) : "" };
  }, [rows, line, at]);
  return (
    <Clipped>
      <g data-series={line.key}>
        {d.line ? <path d={d.line} fill="none" stroke={line.color} strokeWidth={line.width ?? 1.5} strokeDasharray={line.dash} /> : null}
        {d.dots ? <path d={d.dots} fill={line.color} stroke="none" /> : null}
      </g>
    </Clipped>
  );
}
export const SeriesLine = memo(SeriesLineOf) as typeof SeriesLineOf;

export interface BandSpec<R extends Row> {
  key: string;
  color: string;
  fillOpacity: number;
  low: (row: R) => Value;
  high: (row: R) => Value;
  curve?: Curve;
}

/** The area between two values of each row (a range, not a stack), unstroked. */
function SeriesBandOf<R extends Row>({ rows, band }: { rows: readonly R[]; band: BandSpec<R> }) {
  const at = usePixels(rows);
  const d = useMemo(() => {
    if (!at) return "";
    return areaPath(
      at.xs,
      rows.map((r) => band.low(r) ?? null),
      rows.map((r) => band.high(r) ?? null),
      at.y,
      band.curve,
    );
  }, [rows, band, at]);
  return (
    <Clipped>
      <path data-series={band.key} d={d} fill={band.color} fillOpacity={band.fillOpacity} stroke="none" />
    </Clipped>
  );
}
export const SeriesBand = memo(SeriesBandOf) as typeof SeriesBandOf;
