"use client";
import { memo } from "react";
import { Bar, BarChart, CartesianGrid, ErrorBar, Tooltip, XAxis, YAxis } from "recharts";
import type { LabBar } from "@/lib/view/lab";
import { formatDuration } from "@/lib/format";
import { Legend } from "./chart-frame";
import { AXIS_LINE, AXIS_TICK, CHART_MARGIN, GRID_STROKE, SMALL_CHART_STYLE, TOOLTIP_STYLE } from "./theme";

const COLORS = { median: "#2563eb", readWait: "#f97316", spread: "#0f172a" } as const;
const LEGEND = [
  { label: "median execution time (bar: min to max)", color: COLORS.median },
  { label: "median read wait (I/O Timings)", color: COLORS.readWait },
];
const LAB_Y_WIDTH = 64;
const msTick = (ms: number) => formatDuration(ms);
const tooltipMs = (value: unknown) => (typeof value === "number" ? formatDuration(value) : String(value));

/** Per value of the lever: the median of its cold runs with the spread, and the read wait within it. */
export const LabChart = memo(function LabChart({ bars }: { bars: LabBar[] }) {
  return (
    <div data-testid="lab-chart">
      <Legend items={LEGEND} />
      <BarChart data={bars} style={SMALL_CHART_STYLE} responsive margin={CHART_MARGIN}>
        <CartesianGrid stroke={GRID_STROKE} vertical={false} />
        <XAxis dataKey="label" tick={AXIS_TICK} axisLine={AXIS_LINE} />
        <YAxis tickFormatter={msTick} tick={AXIS_TICK} width={LAB_Y_WIDTH} />
        <Tooltip formatter={tooltipMs} contentStyle={TOOLTIP_STYLE} isAnimationActive={false} />
        <Bar dataKey="median" name="median" fill={COLORS.median} isAnimationActive={false}>
          <ErrorBar dataKey="spread" width={8} stroke={COLORS.spread} strokeWidth={1.5} />
        </Bar>
        <Bar dataKey="readWait" name="read wait" fill={COLORS.readWait} isAnimationActive={false} />
      </BarChart>
    </div>
  );
});
