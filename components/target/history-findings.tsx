"use client";
import { memo } from "react";
import { historyFindingLines } from "@/lib/view/history";
import { SEVERITY_LABELS } from "@/lib/view/findings";
import type { TimeDomain } from "@/lib/view/time";
import type { HistoryView } from "@/lib/view/view";
import { Sentence } from "@/components/ui/term";
import { LABEL_CLASSES, SEVERITY_CLASSES } from "./findings-list";

/** The findings of a past range as they held then: "03:01:12 - 03:04:40: ...", most severe first. */
export const HistoryFindings = memo(function HistoryFindings({
  range,
  history,
  onSelectRun,
}: {
  range: TimeDomain;
  history: HistoryView;
  onSelectRun: (runId: string) => void;
}) {
  const lines = historyFindingLines(history.findings, range);
  return (
    <section aria-label="Findings then" data-testid="history-findings" className="space-y-1">
      {lines.length === 0 ? <p className="text-sm text-slate-500">No finding held in this range.</p> : null}
      <ul className="space-y-1">
        {lines.map(({ finding: f, span }) => (
          <li
            key={`${f.id}:${f.from}`}
            data-testid="history-finding"
            data-rule={f.rule}
            data-run={f.runId ?? ""}
            className={`rounded border border-slate-200 border-l-4 px-3 py-1.5 text-sm leading-snug ${SEVERITY_CLASSES[f.severity]}`}
          >
            <span className="mr-2 whitespace-nowrap tabular-nums text-xs text-slate-600" data-testid="history-finding-span">
              {span}:
            </span>
            <span
              className={`mr-2 inline-block rounded px-1.5 text-[11px] font-semibold uppercase tracking-wide ${LABEL_CLASSES[f.severity]}`}
            >
              {SEVERITY_LABELS[f.severity]}
            </span>
            {f.runId ? (
              <button
                type="button"
                className="text-left hover:underline"
                onClick={() => onSelectRun(f.runId!)}
                title="show this run in the query runs, with its timeline"
              >
                <Sentence text={f.text} />
              </button>
            ) : (
              <Sentence text={f.text} />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
});
