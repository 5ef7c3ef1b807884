"use client";
import { memo } from "react";
import type { QueryRun, StatementStat, Verdict } from "@/lib/schemas/runs";
import { useChannel } from "@/lib/client/hooks";
import { formatBytes, formatClock, formatDuration } from "@/lib/format";
import { elapsedMs, isRunning, verdictEvidence, verdictLabel, VERDICT_LABELS } from "@/lib/view/runs";
import { inFlightCell, progressCell, readWaitCell, statementShare } from "@/lib/view/run-cells";
import type { RunGroup } from "@/lib/view/run-groups";
import { Badge, type Tone } from "@/components/ui/badge";
import { QueryText } from "@/components/ui/query-text";
import { Term } from "@/components/ui/term";

export const VERDICT_TONES = { async: "info", sync: "warn", cpu: "muted" } as const satisfies Record<Verdict, Tone>;

const SEEN_BY_WAIT_SAMPLING =
  "No poll of pg_stat_activity saw it: it ran between two polls. Its length and wait shares are pg_wait_sampling's samples; its start is placed to within the second it ran in, and its reads in flight (pg_aios) are not known.";

interface RowProps {
  run: QueryRun;
  /** the stream's clock, for a running run's elapsed time; an ended run's is its own (pass 0, and it stays memoised) */
  now: number;
  selected: boolean;
  onSelect: (id: string | null) => void;
  statements: readonly StatementStat[];
  blockSize: number;
  /** the key of the group row it is a member of (indented under it) */
  group?: string;
}

/** Memoised: a run whose object, selection and clock did not change is not re-rendered (see `now`). */
export const RunRow = memo(function RunRow({ run, now, selected, onSelect, statements, blockSize, group }: RowProps) {
  const nested = group !== undefined;
  const running = isRunning(run);
  const wait = readWaitCell(run);
  const exact = statementShare(run, statements);
  const toggle = () => onSelect(selected ? null : run.id);
  return (
    <tr
      id={`run-${run.id}`}
      data-testid="query-row"
      data-run={run.id}
      data-verdict={run.verdict}
      data-progress={run.progress ?? ""}
      data-running={running}
      data-backend-type={run.backendType}
      data-group={group}
      aria-selected={selected}
      onClick={toggle}
      onKeyDown={(e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          toggle();
        }
      }}
      tabIndex={0}
      className={`cursor-pointer border-b border-slate-100 align-top last:border-0 ${selected ? "bg-blue-50" : nested ? "bg-slate-50/60 hover:bg-slate-100" : "hover:bg-slate-50"}`}
    >
      <td
        className={`py-1.5 pr-2 whitespace-nowrap text-xs ${nested ? "pl-4" : ""}`}
        title={[run.backendType, run.database, run.user].filter(Boolean).join(" · ")}
      >
        <div className="flex items-center gap-1">
          {running ? (
            <span className="inline-block h-2 w-2 animate-pulse rounded-full bg-emerald-500" title="running" />
          ) : (
            <span className="inline-block h-2 w-2 rounded-full bg-slate-300" title="ended" />
          )}
          <span className="font-mono">pid {run.pid}</span>
        </div>
        <div className="text-slate-500">
          {formatClock(run.startedAt)}
          {run.workerPids.length ? (
            <>
              {" · "}
              <Term term="parallel">+{run.workerPids.length} parallel</Term>
            </>
          ) : null}
        </div>
        {run.seenBy === "pg_wait_sampling" ? (
          <div className="text-slate-500" data-testid="run-seen-by" title={SEEN_BY_WAIT_SAMPLING}>
            seen by pg_wait_sampling only
          </div>
        ) : null}
      </td>
      <td className="py-1.5 pr-2">
        <Badge tone={VERDICT_TONES[run.verdict]}>{verdictLabel(run)}</Badge>
        <div className="mt-0.5 max-w-64 text-xs text-slate-600">{verdictEvidence(run)}</div>
      </td>
      <td className="py-1.5 pr-2 text-right tabular-nums" title={wait.title} data-testid="read-wait">
        {wait.main}
        <div className="text-xs text-slate-500">{wait.detail}</div>
        {wait.split ? <div className="whitespace-nowrap text-[11px] text-slate-500">{wait.split}</div> : null}
        {exact ? (
          <div
            className="max-w-40 text-[11px] text-slate-500"
            title="pg_stat_statements over the window: read time / execution time of all its calls, measured (track_io_timing) when each ends. The sampled share above can read higher: a sampler that shares the cores with the scan tends to run when the scan is blocked on a read."
          >
            {exact.text}
            {exact.differs ? (
              <div className="text-amber-800" data-testid="shares-differ" title={exact.differsWhy ?? undefined}>
                {exact.differs}
              </div>
            ) : null}
          </div>
        ) : null}
      </td>
      <td className="py-1.5 pr-2 text-right tabular-nums" data-testid="run-elapsed">
        {formatDuration(elapsedMs(run, now))}
      </td>
      <td className="py-1.5 pr-2 text-right tabular-nums">{running ? <LiveInFlight run={run} /> : <InFlight run={run} />}</td>
      <td className="py-1.5 pr-2">
        <Progress run={run} blockSize={blockSize} />
      </td>
      <td className="py-1.5">
        <QueryText text={run.query} />
        {run.relations.length ? (
          <div className="mt-0.5 text-xs text-slate-500">reads {run.relations.map((r) => r.name).join(", ")}</div>
        ) : null}
      </td>
    </tr>
  );
});

/** A running run's reads in flight, from the header's tick (plain text, CHARTS.md rule 2). */
function LiveInFlight({ run }: { run: QueryRun }) {
  const latest = useChannel("latest");
  return <InFlight run={run} now={latest?.runs.find((s) => s.id === run.id)} />;
}

function InFlight({ run, now }: { run: QueryRun; now?: Parameters<typeof inFlightCell>[1] }) {
  const cell = inFlightCell(run, now);
  return (
    <span data-testid="run-inflight" data-unknown={cell.unknown}>
      <span className={cell.unknown ? "text-slate-500" : undefined}>{cell.main}</span>
      <div className="text-xs text-slate-500">{cell.label}</div>
      {isRunning(run) && run.bytesInFlight && !cell.unknown ? (
        <div className="text-xs text-slate-500">{formatBytes(run.bytesInFlight)}</div>
      ) : null}
    </span>
  );
}

function Progress({ run, blockSize }: { run: QueryRun; blockSize: number }) {
  const cell = progressCell(run, blockSize);
  if (cell.kind === "none") return <span className="text-xs text-slate-500">{cell.text}</span>;
  if (cell.kind === "finished") {
    return (
      <span className="text-xs text-slate-600" data-testid="run-finished">
        {cell.text}
      </span>
    );
  }
  return (
    <div className="w-40" title={cell.title}>
      <div
        className="h-2 overflow-hidden rounded bg-slate-200"
        role="progressbar"
        aria-label={cell.text}
        aria-valuenow={cell.pct}
        aria-valuemin={0}
        aria-valuemax={100}
      >
        <div className="h-full bg-blue-500" style={{ width: `${cell.pct}%` }} />
      </div>
      <div className="mt-0.5 text-xs text-slate-500" data-testid="run-progress">
        {cell.text}
      </div>
      {cell.eta ? (
        <div className="text-xs text-slate-600" data-testid="run-eta">
          {cell.eta}
        </div>
      ) : null}
    </div>
  );
}

const verdictMix = (g: RunGroup) =>
  (Object.entries(g.verdicts) as [Verdict, number][]).map(([v, n]) => `${VERDICT_LABELS[v]} ${n}`).join(", ");

/** Sub-second repeats of one statement as one row; open it for the runs. */
export function GroupRow({
  group,
  open,
  holdsSelected,
  onToggle,
}: {
  group: RunGroup;
  open: boolean;
  holdsSelected: boolean;
  onToggle: () => void;
}) {
  return (
    <tr data-testid="run-group" data-group={group.key} data-runs={group.runs.length} className="border-b border-slate-100 align-top">
      <td className="py-1.5 pr-2 text-xs" colSpan={6}>
        <button type="button" onClick={onToggle} aria-expanded={open} className="text-left hover:underline">
          <span className="mr-1 inline-block w-3 text-slate-500">{open ? "▾" : "▸"}</span>
          <span className="font-medium text-slate-800">{group.title}</span>
          <span className="text-slate-500"> of this statement (its text in the query column)</span>
          {holdsSelected ? <span className="text-slate-500"> · the selected one below; open for all</span> : null}
        </button>
        <div className="pl-4 text-slate-500">
          {verdictMix(group)} · {formatDuration(group.totalMs)} in all · last ended {formatClock(group.lastEndedAt)}
        </div>
      </td>
      <td className="py-1.5">
        <QueryText text={group.query} />
      </td>
    </tr>
  );
}
