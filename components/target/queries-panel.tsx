"use client";
import { Fragment, memo, useMemo, useState } from "react";
import type { PanelTarget } from "@/lib/client/panel-target";
import { useChannel } from "@/lib/client/hooks";
import { formatClock } from "@/lib/format";
import { RUN_SORT_LABELS, RUN_SORTS, isRunning, sortRuns, type RunSort } from "@/lib/view/runs";
import { groupRuns } from "@/lib/view/run-groups";
import { blockSizeOf } from "@/lib/model/window/settings";
import { downText } from "@/lib/view/empty";
import { Panel } from "@/components/ui/panel";
import { Term } from "@/components/ui/term";
import { useViewQueries } from "@/components/charts/time-view";
import { GroupRow, RunRow } from "./run-row";

export { VERDICT_TONES } from "./run-row";
const PAGE = 15;

export const QueriesPanel = memo(function QueriesPanel({
  target,
  selected,
  onSelect,
}: {
  target: PanelTarget;
  selected: string | null;
  onSelect: (id: string | null) => void;
}) {
  const { queries, statements, range, asOf } = useViewQueries();
  const { settings } = useChannel("settings");
  const [sort, setSort] = useState<RunSort>("readWait");
  const [all, setAll] = useState(false);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  // Server time of the newest sample of a run: the stream's clock, not the browser's.
  const now = useMemo(() => queries.reduce((m, r) => Math.max(m, r.lastSeen), 0), [queries]);
  const rows = useMemo(() => groupRuns(sortRuns(queries, sort, now)), [queries, sort, now]);
  const running = queries.filter(isRunning).length;
  const shown = all ? rows : rows.slice(0, PAGE);
  const blockSize = blockSizeOf(settings);
  const down = downText(target);
  // An ended run's elapsed time is its own: its row keeps its props while the clock moves.
  const rowNow = (run: (typeof queries)[number]) => (isRunning(run) ? now : 0);
  const toggle = (key: string) => setOpen((s) => (s.has(key) ? new Set([...s].filter((k) => k !== key)) : new Set([...s, key])));

  return (
    <Panel
      wide
      title="Query runs"
      subtitle={
        <>
          {range
            ? `Frozen: ${queries.length} run${queries.length === 1 ? "" : "s"} overlapping ${formatClock(range.from)}–${formatClock(range.to)}, with their figures as they were when the view was frozen (${running} running then).`
            : `${running} running, ${queries.length - running} ended in the window; ended runs under 1 s are grouped by statement.`}{" "}
          Read wait is sampled (a wait seen in n of m samples), not measured; <Term term="parallel">parallel workers</Term> are folded into
          their leader. Pick a row for its timeline.
        </>
      }
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
      {down && !range ? (
        <p className="mb-2 rounded bg-red-50 px-2 py-1 text-sm text-red-800" data-testid="queries-down">
          {down} The runs below are from before.
        </p>
      ) : null}
      {queries.length === 0 ? (
        <p className="text-sm text-slate-500" data-testid="queries-table" data-rows={0} data-as-of={asOf}>
          {range
            ? "No query ran in the frozen range."
            : "No query ran in the window: runs appear here while they execute (client backends, autovacuum and background workers)."}
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm" data-testid="queries-table" data-rows={queries.length} data-as-of={asOf}>
            <thead>
              <tr className="border-b border-slate-200 text-left text-[11px] uppercase tracking-wide text-slate-500">
                <th className="py-1 pr-2 font-medium">run</th>
                <th className="py-1 pr-2 font-medium">verdict</th>
                <th
                  className="py-1 pr-2 text-right font-medium"
                  title="samples waiting on a read (IO:AioIoCompletion or IO:DataFileRead) / samples: a sampled estimate, not a measurement"
                >
                  waiting on reads, sampled
                </th>
                <th className="py-1 pr-2 text-right font-medium">elapsed</th>
                <th
                  className="py-1 pr-2 text-right font-medium"
                  title="async reads in flight (pg_aios, f_sync = false): now while running, the peak once ended"
                >
                  in flight
                </th>
                <th className="py-1 pr-2 font-medium">progress</th>
                <th className="py-1 font-medium">query</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((row) => {
                if (row.kind === "run")
                  return (
                    <RunRow
                      key={row.run.id}
                      run={row.run}
                      now={rowNow(row.run)}
                      selected={selected === row.run.id}
                      onSelect={onSelect}
                      statements={statements}
                      blockSize={blockSize}
                    />
                  );
                const g = row.group;
                const isOpen = open.has(g.key);
                // A closed group still shows the selected run (one picked while running that has ended since, or
                // from a link): its row stays in sight and its timeline just below the table, not under every run.
                const held = isOpen ? null : (g.runs.find((r) => r.id === selected) ?? null);
                const members = isOpen ? g.runs : held ? [held] : [];
                return (
                  <Fragment key={`g:${g.key}`}>
                    <GroupRow group={g} open={isOpen} holdsSelected={held !== null} onToggle={() => toggle(g.key)} />
                    {members.map((r) => (
                      <RunRow
                        key={r.id}
                        run={r}
                        now={rowNow(r)}
                        selected={selected === r.id}
                        onSelect={onSelect}
                        statements={statements}
                        blockSize={blockSize}
                        group={g.key}
                      />
                    ))}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
          {rows.length > PAGE ? (
            <button
              type="button"
              data-testid="queries-show-all"
              aria-pressed={all}
              className="mt-2 text-xs text-blue-700 hover:underline"
              onClick={() => setAll(!all)}
            >
              {all ? `show the first ${PAGE}` : `show all ${rows.length} rows`}
            </button>
          ) : null}
        </div>
      )}
    </Panel>
  );
});
