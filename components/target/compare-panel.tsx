"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { CompareResponse, type CompareRow } from "@/lib/schemas/compare";
import { getJson, targetPath } from "@/lib/client/api";
import { useChannel, usePageNow } from "@/lib/client/hooks";
import { changeText, sideCells } from "@/lib/view/compare";
import { formatAgo, formatClock, formatDuration } from "@/lib/format";
import { Badge, type Tone } from "@/components/ui/badge";
import { Panel } from "@/components/ui/panel";
import { QueryText } from "@/components/ui/query-text";

const REFRESH_MS = 15_000;

const VERDICT_TONES = { slower: "bad", faster: "ok", same: "muted", too_few: "muted" } as const satisfies Record<
  CompareRow["verdict"]["kind"],
  Tone
>;

const span = (s: { from: number; to: number } | null) =>
  s ? `${formatClock(s.from)}–${formatClock(s.to)} (${formatDuration(s.to - s.from)})` : "–";

/** Did the restart help? The same statements before and after it, from the history on disk. */
export function ComparePanel({ id }: { id: string }) {
  const now = usePageNow();
  // A restart seen live asks again at once (the history has it by then).
  const lastRestart = useChannel("settings").restarts.at(-1)?.at ?? null;
  const compare = useQuery({
    queryKey: ["compare", id, lastRestart],
    queryFn: async ({ signal }) => (await getJson(`${targetPath(id)}/compare`, CompareResponse, signal)).data,
    refetchInterval: REFRESH_MS,
    // A new restart asks again under a new key: the table stays until the answer comes, not "Loading" in between.
    placeholderData: keepPreviousData,
  });
  const c = compare.data;
  return (
    <Panel
      wide
      testId="compare-panel"
      title="Before and after the last restart"
      subtitle="pg_stat_statements per minute, kept on disk for this server: the same statements an hour either side of the restart, with the spread of their calls; the most time at stake (calls × mean) first."
    >
      {compare.isError ? (
        <p role="alert" className="text-sm text-amber-900" data-testid="compare-error">
          {compare.error.message}
        </p>
      ) : !c ? (
        <p className="text-sm text-slate-500">Loading the history…</p>
      ) : c.at === null ? (
        <p className="text-sm text-slate-600" data-testid="compare-note">
          {c.note}
        </p>
      ) : (
        <div className="space-y-2">
          <div className="flex flex-wrap items-center gap-2 text-sm" data-testid="compare-changes" data-at={c.at}>
            <span className="font-medium">
              {c.restart ? "Restart" : "At"} {formatClock(c.at)}
              {now !== null ? ` (${formatAgo(c.at, now)})` : ""}:
            </span>
            {c.changes.length ? (
              c.changes.map((ch) => (
                <Badge key={ch.name} tone="info" testId="compare-change">
                  {changeText(ch)}
                </Badge>
              ))
            ) : (
              <span className="text-slate-500">no io setting changed</span>
            )}
          </div>
          <p className="text-xs text-slate-500">
            before {span(c.before)} · after {span(c.after)}
            {c.onlyBefore || c.onlyAfter ? ` · ${c.onlyBefore} statement(s) seen only before, ${c.onlyAfter} only after` : ""}
            {c.note ? ` · ${c.note}` : ""}
            {c.history ? ` · ${HISTORY_OF[c.history.identifiedBy]}` : ""}
          </p>
          {c.rows.length === 0 ? (
            <p className="text-sm text-slate-500" data-testid="compare-empty">
              No statement was seen on both sides yet.
            </p>
          ) : (
            <CompareRows rows={c.rows} />
          )}
        </div>
      )}
    </Panel>
  );
}

const HISTORY_OF = {
  system_identifier: "this server's history (told apart by its system identifier)",
  address: "this address's history (the role may not read pg_control_system(), so servers are told apart by address only)",
  name: "a history kept under the target's name, from before inflight told servers apart",
} as const satisfies Record<NonNullable<CompareResponse["history"]>["identifiedBy"], string>;

/** The workload's statements, the most time at stake first; housekeeping (SET, BEGIN, monitoring polls) folded below. */
function CompareRows({ rows }: { rows: CompareRow[] }) {
  const main = rows.filter((r) => !r.housekeeping);
  const folded = rows.filter((r) => r.housekeeping);
  return (
    <>
      {main.length ? (
        <CompareTable rows={main} testId="compare-table" rowTestId="compare-row" />
      ) : (
        <p className="text-sm text-slate-500" data-testid="compare-empty">
          Only housekeeping and monitoring polls were seen on both sides yet.
        </p>
      )}
      {folded.length ? (
        <details data-testid="compare-housekeeping">
          <summary className="cursor-pointer text-xs text-slate-600">
            {folded.length} housekeeping statement{folded.length === 1 ? "" : "s"} and monitoring poll{folded.length === 1 ? "" : "s"} (SET,
            BEGIN/COMMIT, reads of pg_stat_* views): not counted in the verdicts
          </summary>
          <CompareTable rows={folded} testId="compare-housekeeping-table" rowTestId="compare-housekeeping-row" />
        </details>
      ) : null}
      <p className="mt-1 text-[11px] text-slate-500">
        A difference counts when it is more than twice its standard error and at least 5% of the mean before; fewer than 5 calls on a side
        is too few to tell.
      </p>
    </>
  );
}

function CompareTable({ rows, testId, rowTestId }: { rows: CompareRow[]; testId: string; rowTestId: string }) {
  const arrow = <span className="px-1 text-slate-500">→</span>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm" data-testid={testId}>
        <thead>
          <tr className="border-b border-slate-200 text-left text-[11px] uppercase tracking-wide text-slate-500">
            <th className="py-1 pr-2 font-medium">verdict</th>
            <th className="py-1 pr-2 text-right font-medium">calls</th>
            <th className="py-1 pr-2 text-right font-medium" title="mean execution time ± the standard deviation of single calls">
              mean exec time ± spread
            </th>
            <th className="py-1 pr-2 text-right font-medium" title="read time over execution time">
              read share
            </th>
            <th className="py-1 pr-2 text-right font-medium">blocks read / call</th>
            <th className="py-1 font-medium">statement</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const [b, a] = [sideCells(r.before), sideCells(r.after)];
            return (
              <tr
                key={r.queryId}
                data-testid={rowTestId}
                data-verdict={r.verdict.kind}
                data-stake-ms={Math.round(r.stakeMs)}
                data-housekeeping={r.housekeeping}
                className="border-b border-slate-100 align-top last:border-0"
              >
                <td className="py-1.5 pr-2">
                  <Badge tone={VERDICT_TONES[r.verdict.kind]}>{r.verdict.text}</Badge>
                </td>
                <td className="whitespace-nowrap py-1.5 pr-2 text-right tabular-nums">
                  {b.calls}
                  {arrow}
                  {a.calls}
                </td>
                <td className="whitespace-nowrap py-1.5 pr-2 text-right tabular-nums">
                  {b.mean}
                  {arrow}
                  {a.mean}
                </td>
                <td className="whitespace-nowrap py-1.5 pr-2 text-right tabular-nums">
                  {b.readShare}
                  {arrow}
                  {a.readShare}
                </td>
                <td className="whitespace-nowrap py-1.5 pr-2 text-right tabular-nums">
                  {b.blocksPerCall}
                  {arrow}
                  {a.blocksPerCall}
                </td>
                <td className="py-1.5">
                  <QueryText text={r.query} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
