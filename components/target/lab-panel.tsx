"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { PanelTarget } from "@/lib/client/panel-target";
import { NO_EXPLAIN_IO } from "@/lib/model/lab/explain-io";
import { hasExplainIo, majorOf } from "@/lib/model/window/major";
import { LabState } from "@/lib/schemas/lab";
import { LAB_RUNS } from "@/lib/schemas/params";
import type { LabQuery } from "@/lib/schemas/enums";
import { leversOf } from "@/lib/schemas/levers";
import { getJson, postJson, targetPath } from "@/lib/client/api";
import { useChannel } from "@/lib/client/hooks";
import { labFraction, labRequestBody, offeredMethods, type LabChoice } from "@/lib/view/lab";
import { Panel } from "@/components/ui/panel";
import { LabLeverFields } from "./lab-lever";
import { LabResult } from "./lab-result";

const POLL_MS = 700;
const QUERY_LABELS = {
  seq: "the demo's sequential scan",
  bitmap: "the demo's bitmap heap scan",
  custom: "my own SELECT",
} as const satisfies Record<LabQuery, string>;

/** The labs' A/B as a button (demo target only): one query, cold, N rounds of each value of one lever. */
export function LabPanel({ target }: { target: PanelTarget }) {
  const key = ["lab", target.id];
  const major = majorOf(target.serverVersionNum);
  const explainIo = hasExplainIo(major);
  const { levers, presets } = leversOf(major);
  const client = useQueryClient();
  const lab = useQuery({
    queryKey: key,
    queryFn: async ({ signal }) => (await getJson(`${targetPath(target.id)}/lab`, LabState, signal)).data,
    refetchInterval: (q) => (q.state.data?.state === "running" ? POLL_MS : false),
  });
  const { settings } = useChannel("settings");
  const offered = offeredMethods(settings.io_method?.enumvals);
  const [query, setQuery] = useState<LabQuery>("seq");
  const [sql, setSql] = useState("");
  const [picked, setPicked] = useState<LabChoice | null>(null);
  const [runs, setRuns] = useState<number>(LAB_RUNS.default);
  // Until the user picks: io_method, every method the build offers (as the lab has always begun).
  const choice = picked ?? { lever: "io_method", values: offered, concurrency: 1 };
  const start = useMutation({
    mutationFn: () => postJson(`${targetPath(target.id)}/lab`, labRequestBody(query, query === "custom" ? sql : null, choice, runs)),
    onSettled: () => client.invalidateQueries({ queryKey: key }),
  });
  const state = lab.data;
  const running = state?.state === "running" || start.isPending;

  return (
    <Panel
      wide
      testId="lab-panel"
      title="A/B lab: which setting is faster for this query?"
      subtitle={`Each run cold (io_method: a restart into it; the others: ALTER SYSTEM and a reload, checked in force, PostgreSQL's buffers emptied; the tables' files dropped from the page cache), the values taking turns within each round, EXPLAIN (ANALYZE, BUFFERS${explainIo ? ", IO" : ""}) in each session (several at once: a run is their median); the median with its spread${explainIo ? ", the scan's prefetch distance and I/Os" : ""}, kept in the server's history. The demo workload pauses meanwhile; the setting is put back at the end.${explainIo ? "" : ` ${NO_EXPLAIN_IO}`}`}
    >
      <form
        className="mb-3 flex flex-wrap items-end gap-3 text-sm"
        onSubmit={(e) => {
          e.preventDefault();
          start.mutate();
        }}
      >
        <label className="flex flex-col gap-0.5">
          <span className="text-xs text-slate-500">query</span>
          <select
            data-testid="lab-query"
            value={query}
            onChange={(e) => setQuery(e.target.value as LabQuery)}
            className="rounded border border-slate-300 bg-white px-2 py-1"
          >
            {Object.entries(QUERY_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <LabLeverFields levers={levers} presets={presets} offered={offered} choice={choice} onChange={setPicked} />
        <label className="flex flex-col gap-0.5">
          <span className="text-xs text-slate-500">
            rounds ({LAB_RUNS.min}-{LAB_RUNS.max})
          </span>
          <input
            data-testid="lab-runs"
            type="number"
            min={LAB_RUNS.min}
            max={LAB_RUNS.max}
            value={runs}
            onChange={(e) => setRuns(Math.min(LAB_RUNS.max, Math.max(LAB_RUNS.min, Math.round(Number(e.target.value) || LAB_RUNS.min))))}
            className="w-20 rounded border border-slate-300 px-2 py-1"
          />
        </label>
        <button
          type="submit"
          data-testid="lab-start"
          disabled={running || choice.values.length === 0 || target.status !== "up"}
          className="rounded bg-slate-800 px-3 py-1.5 font-medium text-white hover:bg-slate-700 disabled:cursor-wait disabled:bg-slate-400"
        >
          {running ? "Running…" : "Run the A/B"}
        </button>
        {query === "custom" ? (
          <textarea
            data-testid="lab-sql"
            value={sql}
            onChange={(e) => setSql(e.target.value)}
            rows={3}
            placeholder="SELECT count(*) FROM public.readings WHERE …"
            className="basis-full rounded border border-slate-300 p-2 font-mono text-xs"
          />
        ) : null}
      </form>
      {start.isError ? (
        <p role="alert" className="mb-2 text-sm text-red-800" data-testid="lab-refused">
          {start.error.message}
        </p>
      ) : null}
      {state && state.state !== "idle" ? <LabStatus state={state} /> : null}
      {state ? <LabResult id={target.id} state={state} /> : null}
    </Panel>
  );
}

function LabStatus({ state }: { state: LabState }) {
  const pct = Math.round(labFraction(state) * 100);
  return (
    <div className="mb-2 space-y-1 text-sm" data-testid="lab-status" data-state={state.state}>
      <div
        role="progressbar"
        aria-label="lab runs done"
        aria-valuemin={0}
        aria-valuemax={state.progress.total}
        aria-valuenow={state.progress.done}
        data-testid="lab-progress"
        className="h-2 w-full max-w-xl rounded bg-slate-100"
      >
        <div className="h-full rounded bg-blue-600 transition-[width]" style={{ width: `${pct}%` }} />
      </div>
      <p className="text-xs text-slate-600">
        {state.progress.done} of {state.progress.total} runs{state.state === "running" ? ` · ${state.progress.phase}` : ""}
        {state.restoredTo ? ` · ${state.request?.lever ?? "io_method"} is back to ${state.restoredTo}` : ""}
      </p>
      {state.request ? <code className="block break-words font-mono text-xs text-slate-700">{state.request.sql}</code> : null}
      {state.request && (state.request.concurrency ?? 1) > 1 ? (
        <p className="text-xs text-slate-600">{state.request.concurrency} sessions at once; a run&apos;s time is the median of theirs.</p>
      ) : null}
      {state.error ? (
        <p role="alert" className="text-red-800" data-testid="lab-error">
          {state.error}
        </p>
      ) : null}
      {state.cold && state.state !== "running" ? <p className="text-[11px] text-slate-500">Cold: {state.cold}.</p> : null}
    </div>
  );
}
