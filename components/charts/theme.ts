// Everything a chart takes as a prop that does not change with the data,
// defined once at module level: recharts memoizes its parts by shallow props,
// so a new arrow or object per render redraws the whole chart (docs/CHARTS.md, rule 3).
import type { RunState } from "@/lib/schemas/tick";
import type { AioStateKey } from "@/lib/view/inflight";
import { OTHER_WAITS } from "@/lib/view/activity";
import { formatBytes, formatClock, formatNumber } from "@/lib/format";

const CHART_HEIGHT = 220;
export const CHART_STYLE = { width: "100%", height: CHART_HEIGHT } as const;
export const SMALL_CHART_STYLE = { width: "100%", height: 160 } as const;
export const CHART_MARGIN = { top: 8, right: 12, bottom: 4, left: 4 } as const;
export const CHART_MARGIN_RIGHT_AXIS = { top: 8, right: 4, bottom: 4, left: 4 } as const;

export const AXIS_TICK = { fontSize: 11, fill: "#475569" } as const;
export const AXIS_LINE = { stroke: "#cbd5e1" } as const;
export const GRID_STROKE = "#e2e8f0";
export const Y_WIDTH = 52;
/** A chart's box less its plot, at most: a left axis, a right one (64 px) and the margins. */
export const PLOT_INSET = Y_WIDTH + 64 + 16;

export const timeTick = (t: number) => formatClock(t);
export const countTick = (n: number) => formatNumber(n, 0);
export const kbTick = (kb: number) => formatBytes(kb * 1024);
export const decimalTick = (n: number) => formatNumber(n, 1);
export const tooltipTime = (t: unknown) => (typeof t === "number" ? formatClock(t) : "");

const yLabel = (value: string) =>
  ({ value, angle: -90, position: "insideLeft", offset: 10, style: { fontSize: 11, fill: "#64748b", textAnchor: "middle" } }) as const;
const yLabelRight = (value: string) =>
  ({ value, angle: 90, position: "insideRight", offset: 10, style: { fontSize: 11, fill: "#64748b", textAnchor: "middle" } }) as const;

export const Y_LABELS = {
  handles: yLabel("handles in flight"),
  bytesRight: yLabelRight("in flight (size)"),
  workers: yLabel("io workers"),
  backends: yLabel("active backends"),
  mbs: yLabel("MB/s"),
  mbCountedRight: yLabelRight("MB counted"),
  kb: yLabel("kB per read"),
  inFlight: yLabel("in flight"),
} as const;

export const TOOLTIP_STYLE = { fontSize: 12, padding: "4px 8px" } as const;

/** pg_aios states: blues as a read is under way, greens once it completed. */
export const STATE_COLORS = {
  HANDED_OUT: "#cbd5e1",
  DEFINED: "#94a3b8",
  STAGED: "#a5b4fc",
  SUBMITTED: "#3b82f6",
  COMPLETED_IO: "#14b8a6",
  COMPLETED_SHARED: "#6ee7b7",
  COMPLETED_LOCAL: "#bef264",
  OTHER: "#64748b",
} as const satisfies Record<AioStateKey, string>;

export const SYNC_COLOR = "#ea580c";
export const BYTES_COLOR = "#7c3aed";
export const RESTART_COLOR = "#dc2626";
export const OUTAGE_FILL = "#fecaca";
export const SELECTION_FILL = "#3b82f6";

export const RUN_STATE_COLORS = {
  aio: "#3b82f6",
  read: "#ea580c",
  io: "#f59e0b",
  cpu: "#94a3b8",
  other: "#a855f7",
} as const satisfies Record<RunState, string>;

export const RUN_STATE_LABELS = {
  aio: "waiting on async reads (AioIoCompletion; AioIoUringSubmit / AioIoUringExecution under io_uring)",
  read: "synchronous read (DataFileRead)",
  io: "other IO wait",
  cpu: "on CPU",
  other: "other wait (lock, LWLock, client)",
} as const satisfies Record<RunState, string>;

const WAIT_COLORS: Record<string, string> = {
  "IO:AioIoCompletion": "#3b82f6",
  "IO:DataFileRead": "#ea580c",
  "IO:DataFilePrefetch": "#f97316",
  CPU: "#94a3b8",
  "LWLock:AioWorkerSubmissionQueue": "#dc2626",
  // 19's io worker pool updating its shared state: beside the queue's red, not taken for it.
  "LWLock:AioWorkerControl": "#be185d",
  [OTHER_WAITS]: "#e2e8f0",
};
const PALETTE = ["#14b8a6", "#a855f7", "#eab308", "#ec4899", "#84cc16", "#0ea5e9", "#f43f5e", "#78716c"];

/** A wait event keeps its colour whatever its rank. */
export function waitColor(name: string): string {
  if (WAIT_COLORS[name]) return WAIT_COLORS[name];
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

/** The time along a live chart's bottom: the props of its <XAxis>, from the view's domain and ticks. */
export const timeXAxis = ({ xDomain, xTicks }: { xDomain: [number, number]; xTicks: number[] }) =>
  ({
    dataKey: "t",
    type: "number",
    domain: xDomain,
    ticks: xTicks,
    tickFormatter: timeTick,
    tick: AXIS_TICK,
    axisLine: AXIS_LINE,
    allowDataOverflow: true,
  }) as const;

/**
 * A value axis from its round ticks (lib/view/scale): the props of a <YAxis>,
 * on the left unless `right`. `whole`: only whole numbers (counts).
 */
export const valueYAxis = (
  { domain, ticks }: { domain: [number, number]; ticks: number[] },
  o: {
    label: (typeof Y_LABELS)[keyof typeof Y_LABELS];
    format: (n: number) => string;
    id?: string;
    right?: boolean;
    width?: number;
    whole?: boolean;
  },
) =>
  ({
    ...(o.id ? { yAxisId: o.id } : {}),
    ...(o.right ? { orientation: "right" as const } : {}),
    domain,
    ticks,
    allowDataOverflow: true,
    ...(o.whole ? { allowDecimals: false } : {}),
    tickFormatter: o.format,
    tick: AXIS_TICK,
    width: o.width ?? Y_WIDTH,
    label: o.label,
  }) as const;
