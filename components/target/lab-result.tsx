"use client";
import type { LabState } from "@/lib/schemas/lab";
import { summaryColumns } from "@/lib/model/lab/export";
import { NO_EXPLAIN_IO, readAheadLimits } from "@/lib/model/lab/explain-io";
import { labBars } from "@/lib/view/lab";
import { valueLabel } from "@/lib/schemas/levers";
import { valueOf } from "@/lib/model/lab/summary";
import { targetPath } from "@/lib/client/api";
import { formatDuration } from "@/lib/format";
import { LabChart } from "@/components/charts/lab-chart";

/** The lab's table (the same columns `npm run lab` prints), its chart, every run, and the exports. */
export function LabResult({ id, state }: { id: string; state: LabState }) {
  if (state.summary.length === 0) return null;
  const exportHref = (format: "json" | "csv") => `${targetPath(id)}/lab/export?format=${format}`;
  const lever = state.request?.lever ?? "io_method";
  const columns = summaryColumns(state.summary, lever);
  const limits = readAheadLimits(state.summary);
  return (
    <div className="space-y-2">
      <div className="overflow-x-auto">
        <table className="w-full text-sm" data-testid="lab-table">
          <thead>
            <tr className="border-b border-slate-200 text-left text-[11px] uppercase tracking-wide text-slate-500">
              {columns.map(([header]) => (
                <th key={header} className="py-1 pr-3 font-medium">
                  {header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {state.summary.map((s) => (
              <tr
                key={valueOf(s)}
                data-testid="lab-row"
                data-method={s.method}
                data-value={valueOf(s)}
                data-median={s.medianMs}
                className="border-b border-slate-100 last:border-0"
              >
                {columns.map(([header, cell]) => (
                  <td key={header} className="py-1.5 pr-3 tabular-nums">
                    {cell(s)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {limits.map((line) => (
        <p key={line} className="text-sm text-amber-800" data-testid="lab-readahead-limit">
          {line}
        </p>
      ))}
      {state.explainIo === false ? (
        <p className="text-xs text-slate-500" data-testid="lab-no-explain-io">
          {NO_EXPLAIN_IO}
        </p>
      ) : null}
      <LabChart bars={labBars(state.summary, lever)} />
      <details className="text-xs text-slate-600">
        <summary className="cursor-pointer">
          every run (EXPLAIN&apos;s Execution Time, in the order run; the setting as SHOW gave it in the sessions)
        </summary>
        <ol className="mt-1 list-decimal pl-6 tabular-nums">
          {state.runs.map((r) => (
            <li key={`${r.round}-${valueOf(r)}`} data-testid="lab-run">
              round {r.round}, {valueLabel(lever, valueOf(r))}: {formatDuration(r.executionMs)}
              {r.sessionsMs ? ` (median of ${r.sessionsMs.map((ms) => formatDuration(ms)).join(", ")})` : ""}, read wait{" "}
              {r.readWaitMs === null ? "unknown" : formatDuration(r.readWaitMs)}
              {r.shown !== undefined && lever !== "io_method" ? `, SHOW ${lever}: ${r.shown}` : ""}
              {r.workers && lever !== "effective_io_concurrency"
                ? `, io workers seen: ${r.workers.min === r.workers.max ? r.workers.min : `${r.workers.min}-${r.workers.max}`}`
                : ""}
            </li>
          ))}
        </ol>
      </details>
      <p className="flex gap-3 text-xs">
        <a href={exportHref("json")} download className="text-blue-700 hover:underline" data-testid="lab-export-json">
          Export JSON (with every EXPLAIN)
        </a>
        <a href={exportHref("csv")} download className="text-blue-700 hover:underline" data-testid="lab-export-csv">
          Export CSV (the runs)
        </a>
      </p>
    </div>
  );
}
