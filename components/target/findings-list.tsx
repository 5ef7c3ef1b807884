"use client";
import { memo } from "react";
import type { FindingSeverity } from "@/lib/schemas/findings";
import { useChannel, usePageNow } from "@/lib/client/live/hooks";
import { findingList, SEVERITY_LABELS, type FindingLine } from "@/lib/client/charts/findings";
import { Sentence } from "@/components/ui/term";

export const SEVERITY_CLASSES = {
  act: "border-l-red-600 bg-red-50 text-red-950",
  warn: "border-l-amber-500 bg-amber-50 text-amber-950",
  info: "border-l-slate-300 bg-white text-slate-800",
} as const satisfies Record<FindingSeverity, string>;
export const LABEL_CLASSES = {
  act: "bg-red-600 text-white",
  warn: "bg-amber-500 text-white",
  info: "bg-slate-200 text-slate-700",
} as const satisfies Record<FindingSeverity, string>;

/** What the window means, at the top of the page: one line per finding, most severe first. */
export const FindingsList = memo(function FindingsList({ targetId, onSelectRun }: { targetId: string; onSelectRun: (runId: string) => void }) {
  const payload = useChannel("findings");
  const now = usePageNow();
  const { lines, more } = findingList(payload, targetId, now);
  return (
    <section aria-label="Findings" data-testid="findings" className="space-y-1 [contain:content]">
      {lines.length === 0 ? <p className="text-sm text-slate-500">No finding yet: a query running for a second or more gets a line here, and so does anything the settings or collection need.</p> : null}
      <ul className="space-y-1">
        {lines.map((line) => (
          <FindingItem key={line.finding.id} line={line} onSelectRun={onSelectRun} />
        ))}
      </ul>
      {more ? (
        <p className="pl-3 text-xs text-slate-600" data-testid="findings-more">
          {more} (in the query runs below)
        </p>
      ) : null}
    </section>
  );
});

function FindingItem({ line: { finding: f, since, href }, onSelectRun }: { line: FindingLine; onSelectRun: (runId: string) => void }) {
  const body = (
    <>
      <span className={`mr-2 inline-block rounded px-1.5 text-[11px] font-semibold uppercase tracking-wide ${LABEL_CLASSES[f.severity]}`}>{SEVERITY_LABELS[f.severity]}</span>
      <Sentence text={f.text} />
      {since ? <span className="ml-2 whitespace-nowrap text-xs text-slate-500" data-testid="finding-since">{since}</span> : null}
    </>
  );
  const runId = f.runId;
  return (
    <li data-testid="finding" data-rule={f.rule} data-severity={f.severity} data-run={runId ?? ""} className={`rounded border border-slate-200 border-l-4 px-3 py-1.5 text-sm leading-snug ${SEVERITY_CLASSES[f.severity]}`}>
      {href && runId ? (
        <a
          href={href}
          className="block hover:underline hover:decoration-slate-400"
          title="show this run in the query runs, with its timeline"
          onClick={(e) => {
            if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
            e.preventDefault();
            onSelectRun(runId);
            // The row exists once the table has this run (it lists running queries first).
            requestAnimationFrame(() => document.getElementById(`run-${runId}`)?.scrollIntoView({ block: "center", behavior: "smooth" }));
          }}
        >
          {body}
        </a>
      ) : (
        body
      )}
    </li>
  );
}
