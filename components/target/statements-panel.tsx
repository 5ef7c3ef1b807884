"use client";
import { memo, useMemo } from "react";
import type { PanelTarget } from "@/lib/client/panel-target";
import { useChannel } from "@/lib/client/hooks";
import { formatDuration, formatNumber, formatShare } from "@/lib/format";
import { readTimeUnknown, statementTable } from "@/lib/view/statements";
import { statementsEmpty } from "@/lib/view/empty";
import { Panel } from "@/components/ui/panel";
import { QueryText } from "@/components/ui/query-text";
import { Glossed } from "@/components/ui/term";

const UNKNOWN = "unknown (track_io_timing off)";

export const StatementsPanel = memo(function StatementsPanel({ target }: { target: PanelTarget }) {
  const { statements, statementsNote, queries } = useChannel("queries");
  const table = useMemo(() => statementTable(statements, queries), [statements, queries]);
  const unknown = readTimeUnknown(statements);
  const version = target.capabilities?.statStatements;
  return (
    <Panel
      wide
      testId="statements-panel"
      title="Statements"
      subtitle={
        <Glossed
          text={`pg_stat_statements${version ? ` ${version}` : ""} over the window: exact figures, counted when each statement ends. Ranked by total exec time; inflight's own statements and the demo's bookkeeping are not listed.`}
        />
      }
    >
      {statementsNote && target.status === "up" ? (
        <p className="mb-2 rounded bg-amber-50 px-2 py-1 text-sm text-amber-900">{statementsNote}</p>
      ) : null}
      {unknown && !statementsNote ? (
        <p className="mb-2 text-xs text-amber-800">Read time is {UNKNOWN}: pg_stat_statements reports 0, which is not the real time.</p>
      ) : null}
      {table.rows.length === 0 ? (
        <p className="text-sm text-slate-500" data-testid="statements-empty">
          {statementsEmpty(target, statementsNote)}
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm" data-testid="statements-table">
            <thead>
              <tr className="border-b border-slate-200 text-left text-[11px] uppercase tracking-wide text-slate-500">
                <th className="py-1 pr-2 text-right font-medium">calls</th>
                <th className="py-1 pr-2 text-right font-medium">exec time</th>
                <th className="py-1 pr-2 text-right font-medium">read time</th>
                <th
                  className="py-1 pr-2 text-right font-medium"
                  title="read time / exec time, exact; per process for a parallel statement (its read time is summed over its processes)"
                >
                  read share
                </th>
                <th className="py-1 pr-2 font-medium">read time within exec time</th>
                <th className="py-1 pr-2 text-right font-medium" title="shared blocks read / hit">
                  blocks read / hit
                </th>
                <th className="py-1 font-medium">statement</th>
              </tr>
            </thead>
            <tbody>
              {table.rows.map(({ stat, execScale, readOfExec, share, hitRatio }) => (
                <tr
                  key={stat.queryId}
                  data-testid="statement-row"
                  data-summed={share.summed}
                  className="border-b border-slate-100 align-top last:border-0"
                >
                  <td className="py-1.5 pr-2 text-right tabular-nums">{formatNumber(stat.calls)}</td>
                  <td className="py-1.5 pr-2 text-right tabular-nums">{formatDuration(stat.totalExecTime)}</td>
                  <td className="py-1.5 pr-2 text-right tabular-nums">
                    {stat.readTime === null ? <span className="text-xs text-amber-800">{UNKNOWN}</span> : formatDuration(stat.readTime)}
                    {share.summed ? <div className="text-[11px] text-slate-500">summed over its processes</div> : null}
                  </td>
                  <td className="py-1.5 pr-2 text-right tabular-nums" title={share.title} data-testid="statement-share">
                    {share.text}
                  </td>
                  <td className="py-1.5 pr-2">
                    <div
                      className="h-3 w-40 rounded-sm bg-slate-100"
                      title={readOfExec === null ? share.title : `read ${formatShare(readOfExec)} of ${formatDuration(stat.totalExecTime)}`}
                    >
                      <div className="relative h-full rounded-sm bg-slate-400" style={{ width: `${Math.max(1, execScale * 100)}%` }}>
                        {readOfExec !== null ? (
                          <div className="absolute inset-y-0 left-0 rounded-sm bg-orange-500" style={{ width: `${readOfExec * 100}%` }} />
                        ) : null}
                      </div>
                    </div>
                  </td>
                  <td className="py-1.5 pr-2 text-right tabular-nums" title={hitRatio === null ? "" : `hit ratio ${formatShare(hitRatio)}`}>
                    {formatNumber(stat.sharedBlksRead)} / {formatNumber(stat.sharedBlksHit)}
                  </td>
                  <td className="py-1.5">
                    <QueryText text={stat.query} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="mt-1 text-[11px] text-slate-500" data-testid="statements-hidden" data-hidden={table.hidden}>
        {table.rows.length ? "Bar: grey = exec time against the slowest statement, orange = its read time. " : ""}
        {table.hidden
          ? `${table.hidden} transaction-control and SET statement${table.hidden === 1 ? "" : "s"} (BEGIN, COMMIT, SET LOCAL …) hidden: nothing to say about their reads.`
          : ""}
      </p>
    </Panel>
  );
});
