"use client";
import { memo, useMemo, useState } from "react";
import type { QueryRun, Verdict } from "@/lib/schemas/runs";
import { formatBytes, formatClock, formatDuration, formatShare } from "@/lib/format";
import { RUN_SORT_LABELS, RUN_SORTS, VERDICT_LABELS, elapsedMs, isRunning, ioWaitShare, sortRuns, verdictEvidence, type RunSort } from "@/lib/client/charts/runs";
import { Badge, type Tone } from "@/components/ui/badge";
import { Panel } from "@/components/ui/panel";
import { useViewQueries } from "@/components/charts/time-view";

export const VERDICT_TONES = { async: "info", sync: "warn", cpu: "muted" } as const satisfies Record<Verdict, Tone>;
const PAGE = 15;
const SHORT_QUERY = 90;

export const QueriesPanel = memo(function QueriesPanel({ selected, onSelect }: { selected: string | null; onSelect: (id: string | null) => void }) {
  const { queries, range } = useViewQueries();
  const [sort, setSort] = useState<RunSort>("readShare");
  const [all, setAll] = useState(false);
  // Server time of the newest sample of a run: the stream's clock, not the browser's.
  const now = useMemo(() => queries.reduce((m, r) => Math.max(m, r.lastSeen), 0), [queries]);
  const sorted = useMemo(() => sortRuns(queries, sort, now), [queries, sort, now]);
  const running = queries.filter(isRunning).length;
  const shown = all ? sorted : sorted.slice(0, PAGE);

  return (
    <Panel
      wide
      title="Query runs"
      subtitle={`${
        range ? `Frozen: ${queries.length} run${queries.length === 1 ? "" : "s"} overlapping ${formatClock(range.from)}–${formatClock(range.to)}, with their figures as they were when the view was frozen (${running} running then).` : `${running} running, ${queries.length - running} ended in the window.`
      } Shares are sampled (a wait seen in n of m samples), not measured; pick a row for its timeline.`}
      actions={
        <>
          <span className="text-slate-500">sort by</span>
          {RUN_SORTS.map((s) => (
            <button
              key={s}
              type="button"
              onClick={() => setSort(s)}
              aria-pressed={sort === s}
              className={`rounded px-2 py-0.5 ring-1 ring-inset ${sort === s ? "bg-slate-800 text-white ring-slate-800" : "ring-slate-300 hover:bg-slate-100"}`}
            >
              {RUN_SORT_LABELS[s]}
            </button>
          ))}
        </>
      }
    >
      {queries.length === 0 ? (
        <p className="text-sm text-slate-500" data-testid="queries-table" data-rows={0}>
          {range
            ? "No query ran in the frozen range."
            : "No query ran in the window: runs appear here while they execute (client backends, autovacuum and background workers)."}
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm" data-testid="queries-table" data-rows={queries.length}>
            <thead>
              <tr className="border-b border-slate-200 text-left text-[11px] uppercase tracking-wide text-slate-500">
                <th className="py-1 pr-2 font-medium">run</th>
                <th className="py-1 pr-2 font-medium">verdict</th>
                <th className="py-1 pr-2 text-right font-medium" title="samples waiting on IO of any kind / samples: a sampled estimate, not a measurement">IO wait, sampled</th>
                <th className="py-1 pr-2 text-right font-medium">elapsed</th>
                <th className="py-1 pr-2 text-right font-medium" title="async reads in flight: now while running, the peak once ended">in flight</th>
                <th className="py-1 pr-2 font-medium">progress</th>
                <th className="py-1 font-medium">query</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((r) => (
                <RunRow key={r.id} run={r} now={now} selected={selected === r.id} onSelect={onSelect} />
              ))}
            </tbody>
          </table>
          {sorted.length > PAGE ? (
            <button type="button" data-testid="queries-show-all" aria-pressed={all} className="mt-2 text-xs text-blue-700 hover:underline" onClick={() => setAll(!all)}>
              {all ? `show the first ${PAGE}` : `show all ${sorted.length} runs`}
            </button>
          ) : null}
        </div>
      )}
    </Panel>
  );
});

function RunRow({ run, now, selected, onSelect }: { run: QueryRun; now: number; selected: boolean; onSelect: (id: string | null) => void }) {
  const running = isRunning(run);
  const share = ioWaitShare(run);
  return (
    <tr
      data-testid="query-row"
      data-run={run.id}
      data-verdict={run.verdict}
      data-progress={run.progress ?? ""}
      data-running={running}
      aria-selected={selected}
      onClick={() => onSelect(selected ? null : run.id)}
      onKeyDown={(e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          onSelect(selected ? null : run.id);
        }
      }}
      tabIndex={0}
      className={`cursor-pointer border-b border-slate-100 align-top last:border-0 ${selected ? "bg-blue-50" : "hover:bg-slate-50"}`}
    >
      <td className="py-1.5 pr-2 whitespace-nowrap text-xs" title={[run.backendType, run.database, run.user].filter(Boolean).join(" · ")}>
        <div className="flex items-center gap-1">
          {running ? <span className="inline-block h-2 w-2 animate-pulse rounded-full bg-emerald-500" title="running" /> : <span className="inline-block h-2 w-2 rounded-full bg-slate-300" title="ended" />}
          <span className="font-mono">pid {run.pid}</span>
        </div>
        <div className="text-slate-500">
          {formatClock(run.startedAt)}
          {run.workerPids.length ? ` · +${run.workerPids.length} parallel` : ""}
        </div>
      </td>
      <td className="py-1.5 pr-2">
        <Badge tone={VERDICT_TONES[run.verdict]}>{VERDICT_LABELS[run.verdict]}</Badge>
        <div className="mt-0.5 max-w-64 text-xs text-slate-600">{verdictEvidence(run)}</div>
      </td>
      <td className="py-1.5 pr-2 text-right tabular-nums" title={`${run.ioWaitSamples} of ${run.samples} samples waiting on IO (async ${run.aioWaitSamples}, synchronous ${run.readWaitSamples}, other ${run.otherIoWaitSamples})`}>
        {formatShare(share)}
        <div className="text-xs text-slate-500">
          {run.ioWaitSamples} of {run.samples}
        </div>
        {run.ioWaitSamples ? (
          <div className="whitespace-nowrap text-[11px] text-slate-500">
            {[run.aioWaitSamples ? `${run.aioWaitSamples} async` : "", run.readWaitSamples ? `${run.readWaitSamples} sync` : "", run.otherIoWaitSamples ? `${run.otherIoWaitSamples} other` : ""].filter(Boolean).join(" · ")}
          </div>
        ) : null}
      </td>
      <td className="py-1.5 pr-2 text-right tabular-nums">{formatDuration(elapsedMs(run, now))}</td>
      <td className="py-1.5 pr-2 text-right tabular-nums">
        {running ? run.inFlightNow : run.maxInFlight}
        <div className="text-xs text-slate-500">{running ? `peak ${run.maxInFlight}` : "peak"}</div>
        {run.bytesInFlight ? <div className="text-xs text-slate-500">{formatBytes(run.bytesInFlight)}</div> : null}
      </td>
      <td className="py-1.5 pr-2">
        <Progress run={run} />
      </td>
      <td className="py-1.5">
        <QueryText text={run.query} />
        {run.relations.length ? <div className="mt-0.5 text-xs text-slate-500">reads {run.relations.map((r) => r.name).join(", ")}</div> : null}
      </td>
    </tr>
  );
}

function Progress({ run }: { run: QueryRun }) {
  if (run.progress === null) return <span className="text-xs text-slate-400">–</span>;
  const pct = Math.round(Math.min(1, Math.max(0, run.progress)) * 100);
  return (
    <div
      className="w-36"
      title={`share of ${run.progressRelation ?? "the relation"} covered by async reads since the first block seen in flight (a synchronized scan may start mid-table and wrap around)`}
    >
      <div className="h-2 overflow-hidden rounded bg-slate-200" role="progressbar" aria-valuenow={pct} aria-valuemin={0} aria-valuemax={100}>
        <div className="h-full bg-blue-500" style={{ width: `${pct}%` }} />
      </div>
      <div className="mt-0.5 text-xs text-slate-500">
        {pct}% of {run.progressRelation ?? "relation"}
      </div>
    </div>
  );
}

/** Query text as text (never HTML): the start, and the whole on demand. Each text is one text node. */
export function QueryText({ text }: { text: string }) {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= SHORT_QUERY) {
    return (
      <code className="block break-words font-mono text-xs text-slate-800" data-testid="query-text">
        {flat}
      </code>
    );
  }
  return (
    <details onClick={(e) => e.stopPropagation()}>
      <summary className="cursor-pointer list-none font-mono text-xs text-slate-800">
        <span data-testid="query-text">{`${flat.slice(0, SHORT_QUERY)}…`}</span> <span className="font-sans text-blue-700">full text</span>
      </summary>
      <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 font-mono text-xs" data-testid="query-text">
        {text}
      </pre>
    </details>
  );
}
