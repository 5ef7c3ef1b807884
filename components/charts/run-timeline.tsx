"use client";
import { memo, useMemo } from "react";
import { CartesianGrid, LineChart, XAxis, YAxis } from "recharts";
import { RUN_STATES } from "@/lib/schemas/enums";
import { useChannel, useChannelSelect, useStable, useStaggeredFrame } from "@/lib/client/hooks";
import { formatClock, formatDuration } from "@/lib/format";
import {
  RUN_LINE_MAX_POINTS,
  runLine,
  runLineEmpty,
  runSamples,
  sameSamples,
  stateCounts,
  stateSegments,
  type RunLineRow,
  type StateSegment,
} from "@/lib/view/runs";
import { timeTicks } from "@/lib/view/time";
import { pixelBudget } from "@/lib/view/series";
import { Panel } from "@/components/ui/panel";
import { QueryText } from "@/components/ui/query-text";
import { valueAxis } from "@/lib/view/scale";
import { useChartBox } from "./chart-box";
import { ChartBody, Legend } from "./chart-frame";
import { SeriesLine, type LineSpec } from "./series-layer";
import { PointerSurface, Pointed } from "./pointer-layer";
import { useView, useViewQueries } from "./time-view";
import {
  CHART_MARGIN,
  GRID_STROKE,
  RUN_STATE_COLORS,
  RUN_STATE_LABELS,
  PLOT_INSET,
  SMALL_CHART_STYLE,
  SYNC_COLOR,
  Y_LABELS,
  Y_WIDTH,
  countTick,
  timeXAxis,
  valueYAxis,
} from "./theme";

const LINE_LEGEND = [
  { label: "async handles in flight", color: "#2563eb", line: true },
  { label: "synchronous (f_sync)", color: SYNC_COLOR, dashed: true },
];

export function RunTimelinePanel({ runId, onClose }: { runId: string; onClose: () => void }) {
  const { frozen } = useView();
  const box = useChartBox();
  const liveFrame = useStaggeredFrame(5, frozen !== null || !box.visible);
  const liveOutages = useChannel("outages");
  const frame = frozen?.frame ?? liveFrame;
  const outages = frozen?.outages ?? liveOutages;
  const { all } = useViewQueries();
  const cadenceMs = useChannelSelect("target", (t) => t?.sampleMs ?? 100);
  const run = all.find((r) => r.id === runId) ?? null;
  // An ended run's samples stay as they are: its charts are not redrawn for every frame.
  const samples = useStable(
    useMemo(() => runSamples(frame.ticks, runId), [frame.ticks, runId]),
    sameSamples,
  );
  const segments = useMemo(() => stateSegments(samples, cadenceMs, outages), [samples, cadenceMs, outages]);
  const maxPoints = pixelBudget(box.width, RUN_LINE_MAX_POINTS, PLOT_INSET);
  const line = useMemo(() => runLine(samples, cadenceMs, outages, maxPoints), [samples, cadenceMs, outages, maxPoints]);
  const counts = stateCounts(samples);
  const from = samples[0]?.t ?? 0;
  const to = Math.max((samples.at(-1)?.t ?? 0) + cadenceMs, from + cadenceMs);
  const axis = useMemo(() => ({ xDomain: [from, to] as [number, number], xTicks: timeTicks(from, to, 6) }), [from, to]);

  return (
    <Panel
      wide
      testId="run-timeline"
      title={`Run timeline: pid ${run?.pid ?? runId.split(":")[0]}`}
      subtitle={
        run
          ? `started ${formatClock(run.startedAt)}${run.endedAt ? `, ended ${formatClock(run.endedAt)}` : ", running"}: its state in each sample and its reads in flight`
          : "this run has left the window"
      }
      actions={
        <button type="button" onClick={onClose} className="rounded px-2 py-0.5 ring-1 ring-inset ring-slate-300 hover:bg-slate-100">
          close
        </button>
      }
    >
      {run ? <QueryText text={run.query} /> : null}
      {samples.length === 0 ? (
        <p className="mt-2 text-sm text-slate-500">No sample of this run in the window (samples are kept for the window only).</p>
      ) : (
        <>
          <Legend items={RUN_STATES.map((s) => ({ label: `${RUN_STATE_LABELS[s]}: ${counts[s]}`, color: RUN_STATE_COLORS[s] }))} />
          <StateStrip segments={segments} from={from} to={to} />
          <div
            className="mt-1 flex justify-between text-[11px] text-slate-500 tabular-nums"
            style={{ marginLeft: Y_WIDTH + CHART_MARGIN.left, marginRight: CHART_MARGIN.right }}
          >
            <span>{formatClock(from)}</span>
            <span>
              {samples.length} sample{samples.length === 1 ? "" : "s"} over {formatDuration(to - from)}
            </span>
            <span>{formatClock(to)}</span>
          </div>
          <Legend items={LINE_LEGEND} />
          <div ref={box.ref}>
            <ChartBody empty={runLineEmpty(samples, line)}>
              <RunLinePlot rows={line} axis={axis} />
            </ChartBody>
          </div>
        </>
      )}
    </Panel>
  );
}

/** One coloured band per stretch of samples in the same state (a few SVG rects, not a bar chart). */
function StateStrip({ segments, from, to }: { segments: readonly StateSegment[]; from: number; to: number }) {
  const span = Math.max(1, to - from);
  return (
    <div style={{ marginLeft: Y_WIDTH + CHART_MARGIN.left, marginRight: CHART_MARGIN.right }}>
      <svg
        viewBox="0 0 1000 20"
        preserveAspectRatio="none"
        className="block h-5 w-full rounded bg-slate-100"
        data-testid="run-state-strip"
        data-segments={segments.length}
      >
        {segments.map((s) => (
          <rect
            key={s.from}
            x={((s.from - from) / span) * 1000}
            width={Math.max(0.5, ((s.to - s.from) / span) * 1000)}
            y={0}
            height={20}
            fill={RUN_STATE_COLORS[s.state]}
          >
            <title>{`${formatClock(s.from)}–${formatClock(s.to)}: ${RUN_STATE_LABELS[s.state]}`}</title>
          </rect>
        ))}
      </svg>
    </div>
  );
}

/** Dots only when there are few samples: one or two samples draw no line. */
const FEW_SAMPLES = 30;
const ASYNC_LINE: LineSpec<RunLineRow> = {
  key: "inFlight",
  name: "async in flight",
  color: "#2563eb",
  value: (r) => r.inFlight,
  curve: "stepAfter",
};
const SYNC_LINE: LineSpec<RunLineRow> = {
  key: "syncInFlight",
  name: "synchronous (f_sync)",
  color: SYNC_COLOR,
  value: (r) => r.syncInFlight,
  dash: "4 2",
  curve: "stepAfter",
};
const withDots = (line: LineSpec<RunLineRow>): LineSpec<RunLineRow> => ({ ...line, dot: 2 });
const LINES = [ASYNC_LINE, SYNC_LINE];
const DOTTED = LINES.map(withDots);

const RunLinePlot = memo(function RunLinePlot({
  rows,
  axis,
}: {
  rows: RunLineRow[];
  axis: { xDomain: [number, number]; xTicks: number[] };
}) {
  const [async, sync] = rows.length < FEW_SAMPLES ? DOTTED : LINES;
  const yAxis = useMemo(() => valueAxis(rows.reduce((m, r) => Math.max(m, r.inFlight ?? 0, r.syncInFlight ?? 0), 0)), [rows]);
  return (
    <Pointed rows={rows} series={LINES} domain={axis.xDomain}>
      <LineChart style={SMALL_CHART_STYLE} responsive margin={CHART_MARGIN}>
        <CartesianGrid stroke={GRID_STROKE} vertical={false} />
        <XAxis {...timeXAxis(axis)} />
        <YAxis {...valueYAxis(yAxis, { label: Y_LABELS.inFlight, format: countTick, whole: true })} />
        <SeriesLine rows={rows} line={async} />
        <SeriesLine rows={rows} line={sync} />
        <PointerSurface />
      </LineChart>
    </Pointed>
  );
});
