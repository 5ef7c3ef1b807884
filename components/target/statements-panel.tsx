"use client";
import { memo, useMemo } from "react";
import { useChannel } from "@/lib/client/live/hooks";
import { formatDuration, formatNumber, formatShare } from "@/lib/format";
import { rankStatements, readTimeUnknown } from "@/lib/client/charts/statements";
import { Panel } from "@/components/ui/panel";
import { QueryText } from "./queries-panel";

const UNKNOWN = "unknown (track_io_timing off)";

export const StatementsPanel = memo(function StatementsPanel({ statStatements }: { statStatements: string | null }) {
  const { statements, statementsNote } = useChannel("queries");
  const rows = useMemo(() => rankStatements(statements), [statements]);
  const unknown = readTimeUnknown(statements);
  return (
    <Panel
      wide
      testId="statements-panel"
      title="Statements"
      subtitle={`pg_stat_statements${statStatements ? ` ${statStatements}` : ""} over the window: exact figures, counted when each statement ends. Ranked by total exec time.`}
    >
      {statementsNote ? <p className="mb-2 rounded bg-amber-50 px-2 py-1 text-sm text-amber-900">{statementsNote}</p> : null}
      {unknown && !statementsNote ? <p className="mb-2 text-xs text-amber-800">Read time is {UNKNOWN}: pg_stat_statements reports 0, which is not the real time.</p> : null}
      {rows.length === 0 ? (
        <p className="text-sm text-slate-500">{statStatements ? "No statement completed in the window." : "pg_stat_statements is not installed in the connected database: no per-statement figures."}</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm" data-testid="statements-table">
            <thead>
              <tr className="border-b border-slate-200 text-left text-[11px] uppercase tracking-wide text-slate-500">
                <th className="py-1 pr-2 text-right font-medium">calls</th>
                <th className="py-1 pr-2 text-right font-medium">exec time</th>
                <th className="py-1 pr-2 text-right font-medium">read time</th>
                <th className="py-1 pr-2 text-right font-medium">read share</th>
                <th className="py-1 pr-2 font-medium">read time within exec time</th>
                <th className="py-1 pr-2 text-right font-medium" title="shared blocks read / hit">blocks read / hit</th>
                <th className="py-1 font-medium">statement</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ stat, execScale, readOfExec, hitRatio }) => (
                <tr key={stat.queryId} data-testid="statement-row" className="border-b border-slate-100 align-top last:border-0">
                  <td className="py-1.5 pr-2 text-right tabular-nums">{formatNumber(stat.calls)}</td>
                  <td className="py-1.5 pr-2 text-right tabular-nums">{formatDuration(stat.totalExecTime)}</td>
                  <td className="py-1.5 pr-2 text-right tabular-nums">{stat.readTime === null ? <span className="text-xs text-amber-800">{UNKNOWN}</span> : formatDuration(stat.readTime)}</td>
                  <td className="py-1.5 pr-2 text-right tabular-nums">{formatShare(stat.readShare)}</td>
                  <td className="py-1.5 pr-2">
                    <div
                      className="h-3 w-40 rounded-sm bg-slate-100"
                      title={readOfExec === null ? "read time unknown" : `read ${formatShare(readOfExec)} of ${formatDuration(stat.totalExecTime)}`}
                    >
                      <div className="relative h-full rounded-sm bg-slate-400" style={{ width: `${Math.max(1, execScale * 100)}%` }}>
                        {readOfExec !== null ? <div className="absolute inset-y-0 left-0 rounded-sm bg-orange-500" style={{ width: `${readOfExec * 100}%` }} /> : null}
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
          <p className="mt-1 text-[11px] text-slate-500">
            Bar: grey = exec time against the slowest statement, orange = its read time.
          </p>
        </div>
      )}
    </Panel>
  );
});
