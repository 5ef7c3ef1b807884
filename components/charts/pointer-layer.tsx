"use client";
// The pointer over a time chart, handled by inflight (docs/CHARTS.md, rule
// 11): recharts is handed no rows at all (it draws the frame from the axes'
// domains and ticks), so nothing of it reruns row by row at a redraw. The
// time under the pointer comes from the plot's pixels and the x domain; the
// tooltip lists the row nearest to it, in recharts' own tooltip box.
import { createContext, useCallback, useContext, useLayoutEffect, useRef, useState, type PointerEvent, type ReactNode } from "react";
import { DefaultTooltipContent, usePlotArea, type TooltipPayloadEntry } from "recharts";
import { nearestRow } from "@/lib/view/paths";
import { TOOLTIP_STYLE, tooltipTime } from "./theme";

type Row = { t: number };

/** What a chart does with the pointer besides its tooltip (the in-flight chart's drag to zoom). */
export interface PointerActions {
  down?: (t: number) => void;
  move?: (t: number) => void;
  up?: () => void;
  leave?: () => void;
}

export interface TooltipSeries<R extends Row> {
  key: string;
  name: string;
  color: string;
  value: (row: R) => number | null | undefined;
  /** shown instead of the plain number */
  format?: (value: number, row: R) => string;
}

interface PlotBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Hover {
  t: number;
  plot: PlotBox;
}

/** Where the plot is in the chart, told by <PointerSurface> from recharts' layout. */
type PlotRef = { current: PlotBox | null };

const PlotContext = createContext<PlotRef | null>(null);

/** The series' values at `row`, as recharts' tooltip lists them (nothing for a series the row lacks). */
export function tooltipPayload<R extends Row>(row: R, series: readonly TooltipSeries<R>[]): TooltipPayloadEntry[] {
  const payload: TooltipPayloadEntry[] = [];
  for (const s of series) {
    const v = s.value(row);
    if (v === null || v === undefined) continue;
    payload.push({ name: s.name, value: s.format ? s.format(v, row) : v, color: s.color, dataKey: s.key, graphicalItemId: s.key });
  }
  return payload;
}

interface PointedProps<R extends Row> {
  rows: readonly R[];
  series: readonly TooltipSeries<R>[];
  /** the chart's x domain: [from, to] */
  domain: readonly [number, number];
  actions?: PointerActions;
  /** the recharts chart, with a <PointerSurface /> among its children */
  children: ReactNode;
}

/**
 * Around a recharts chart: the pointer's time over the plot, the tooltip and
 * a cursor line at the row nearest it, and the chart's own pointer actions.
 * The events are the wrapper's, so a mark drawn over the plot (the zoom's
 * selection) does not take the pointer from it. A hover redraws only the
 * tooltip: the chart element is the same, and React leaves it as it is.
 */
export function Pointed<R extends Row>({ rows, series, domain, actions, children }: PointedProps<R>) {
  const [hover, setHover] = useState<Hover | null>(null);
  const plotRef = useRef<PlotBox | null>(null);
  const at = useCallback(
    (e: PointerEvent<HTMLDivElement>): { t: number; inside: boolean; plot: PlotBox } | null => {
      const plot = plotRef.current;
      if (!plot || plot.width <= 0) return null;
      const box = e.currentTarget.getBoundingClientRect();
      const x = e.clientX - box.left;
      const y = e.clientY - box.top;
      const f = Math.min(1, Math.max(0, (x - plot.x) / plot.width));
      const inside = x >= plot.x && x <= plot.x + plot.width && y >= plot.y && y <= plot.y + plot.height;
      return { t: domain[0] + f * (domain[1] - domain[0]), inside, plot };
    },
    [domain],
  );
  const row = hover ? nearestRow(rows, hover.t) : null;
  return (
    <div
      className="relative"
      onPointerMove={(e) => {
        const p = at(e);
        if (!p) return;
        setHover(p.inside ? { t: p.t, plot: p.plot } : null);
        actions?.move?.(p.t);
      }}
      onPointerDown={(e) => {
        const p = at(e);
        if (p?.inside) actions?.down?.(p.t);
      }}
      onPointerUp={() => actions?.up?.()}
      onPointerLeave={() => {
        setHover(null);
        actions?.leave?.();
      }}
    >
      <PlotContext.Provider value={plotRef}>{children}</PlotContext.Provider>
      {hover && row ? <HoverBox row={row} plot={hover.plot} domain={domain} series={series} /> : null}
    </div>
  );
}

function HoverBox<R extends Row>({
  row,
  plot,
  domain,
  series,
}: {
  row: R;
  plot: PlotBox;
  domain: readonly [number, number];
  series: readonly TooltipSeries<R>[];
}) {
  const span = domain[1] - domain[0];
  const x = plot.x + (span > 0 ? ((row.t - domain[0]) / span) * plot.width : 0);
  if (x < plot.x - 0.5 || x > plot.x + plot.width + 0.5) return null;
  // Beside the cursor, on the side with room.
  const right = x > plot.x + plot.width / 2;
  return (
    <>
      <div className="pointer-events-none absolute w-px bg-slate-400" style={{ left: x, top: plot.y, height: plot.height }} />
      <div
        className="pointer-events-none absolute z-10"
        data-testid="chart-tooltip"
        style={{ top: plot.y + 4, left: right ? undefined : x + 12, right: right ? `calc(100% - ${x - 12}px)` : undefined }}
      >
        <DefaultTooltipContent
          payload={tooltipPayload(row, series)}
          label={row.t}
          labelFormatter={tooltipTime}
          contentStyle={TOOLTIP_STYLE}
        />
      </div>
    </>
  );
}

/**
 * Last among a recharts chart's children (inside <Pointed>): tells Pointed
 * where recharts laid out the plot, and marks it (for tests) with an
 * invisible rect that takes no events.
 */
export function PointerSurface() {
  const plot = usePlotArea();
  const plotRef = useContext(PlotContext);
  const box = plot ? { x: plot.x, y: plot.y, width: plot.width, height: plot.height } : null;
  useLayoutEffect(() => {
    if (plotRef) plotRef.current = box;
  });
  if (!box) return null;
  return <rect {...box} fill="none" pointerEvents="none" data-testid="chart-pointer" />;
}
