"use client";
import type { AspectHealth, TargetInfo, WatchCost } from "@/lib/schemas/target";
import { aspectsView, costView, type AspectTone } from "@/lib/view/header";
import { Glossed } from "@/components/ui/term";

const ASPECT_CLASSES = { bad: "text-red-800 font-medium", muted: "text-slate-500" } as const satisfies Record<AspectTone, string>;

/** What watching costs this server, with the per-statement breakdown on demand. */
export function CostLine({ cost, children }: { cost: WatchCost; children?: React.ReactNode }) {
  const v = costView(cost);
  return (
    <details data-testid="watch-cost" data-ms-per-second={cost.msPerSecond}>
      <summary className="cursor-pointer list-none">
        <span className="font-medium text-slate-700">{v.summary}</span>
        {v.over || v.note ? (
          <span className="text-amber-800"> ({v.over ? "over the budget" : "sampling slowed to stay in the budget"})</span>
        ) : null}
        <span className="ml-1 text-blue-700">▾</span>
      </summary>
      <div className="mt-1 space-y-0.5">
        {v.note ? (
          <p className="text-amber-800" data-testid="watch-cost-note">
            {v.note}
          </p>
        ) : null}
        <p>
          {v.core};{" "}
          {v.aios ? (
            <>
              <Glossed text={v.aios} />;{" "}
            </>
          ) : null}
          <span className={v.over ? "text-amber-800" : "text-slate-500"}>{v.budget}</span>
        </p>
        {children}
      </div>
      {v.rows.length === 0 ? (
        <p className="mt-1 text-slate-500">No statement measured yet.</p>
      ) : (
        <table className="mt-1 text-xs tabular-nums" data-testid="watch-cost-table">
          <thead>
            <tr className="text-left text-[11px] uppercase tracking-wide text-slate-500">
              <th className="pr-3 font-medium">statement (sql/)</th>
              <th className="pr-3 text-right font-medium">a call</th>
              <th className="pr-3 text-right font-medium">calls</th>
              <th className="pr-3 text-right font-medium">server time</th>
              <th className="font-medium">measured</th>
            </tr>
          </thead>
          <tbody>
            {v.rows.map((r) => (
              <tr key={r.statement}>
                <td className="pr-3 font-mono">{r.statement}</td>
                <td className="pr-3 text-right">{r.perCall}</td>
                <td className="pr-3 text-right">{r.rate}</td>
                <td className="pr-3 text-right">{r.perSecond}</td>
                <td className="text-slate-500">{r.source}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
}

/** Each collection aspect that is not fine, as itself; all fine in a few words. */
export function CollectionLine({
  aspects,
  target,
}: {
  aspects: readonly AspectHealth[];
  target: Pick<TargetInfo, "status" | "statusSince">;
}) {
  const v = aspectsView(aspects, target);
  if (v.allOk) {
    return (
      <p data-testid="collection" data-ok="true" data-degraded="false" className="text-slate-500">
        collection: all {aspects.length} aspects read fine (sampling, <Glossed text="pg_aios, pg_stat_io" />, settings,{" "}
        <Glossed text="pg_stat_statements" />, relation names)
      </p>
    );
  }
  return (
    <p data-testid="collection" data-ok="false" data-degraded={v.degraded}>
      <span className="text-slate-500">collection: </span>
      {v.items.map((i, n) => (
        <span key={i.aspect} data-testid={`aspect-${i.aspect}`} data-state={i.state} className={ASPECT_CLASSES[i.tone]}>
          {n > 0 ? "; " : ""}
          {i.text}
        </span>
      ))}
      {target.status === "up" && v.items.length < aspects.length ? <span className="text-slate-500">; the others read fine</span> : null}
    </p>
  );
}
