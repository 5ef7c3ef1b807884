"use client";
import { memo, useId, useState } from "react";
import type { Finding, FindingSeverity } from "@/lib/schemas/findings";
import { useChannel, usePageNow } from "@/lib/client/hooks";
import { findingList, SEVERITY_LABELS, type FindingLine } from "@/lib/view/findings";
import { Sentence } from "@/components/ui/term";

export const SEVERITY_CLASSES = {
  act: "border-l-red-600 bg-red-50 text-red-950",
  note: "border-l-amber-500 bg-amber-50 text-amber-950",
  info: "border-l-slate-300 bg-white text-slate-800",
} as const satisfies Record<FindingSeverity, string>;
export const LABEL_CLASSES = {
  act: "bg-red-600 text-white",
  note: "bg-amber-500 text-white",
  info: "bg-slate-200 text-slate-700",
} as const satisfies Record<FindingSeverity, string>;
/** Separators drawn, not written: a lever's arrow and a clause's dot are not words to read. */
const ARROW = "before:mr-1 before:text-slate-500 before:content-['→']";
const DOT = "before:mr-1 before:content-['·']";
const LEVER_CLASSES = {
  act: "font-semibold text-red-800",
  note: "font-medium text-amber-900",
  info: "text-slate-600",
} as const satisfies Record<FindingSeverity, string>;

/**
 * What the window means, at the top of the page, at a glance: one line per
 * server-wide cause, then a verdict per running query (what it does now, how
 * far, how long left, the lever), each with its evidence on demand.
 */
export const FindingsList = memo(function FindingsList({
  targetId,
  onSelectRun,
}: {
  targetId: string;
  onSelectRun: (runId: string) => void;
}) {
  const payload = useChannel("findings");
  const now = usePageNow();
  const [all, setAll] = useState(false);
  const { causes, runs, more, hidden } = findingList(payload, targetId, now, all);
  const pidsShown = new Set(runs.map((l) => l.finding.pid));
  // A running query a cause above holds back points at it, its lever said once there.
  const held = new Set(causes.flatMap((l) => (l.finding.glance.lever ? (l.finding.glance.holds ?? []) : [])));
  return (
    <section aria-label="Findings" data-testid="findings" className="space-y-1 [contain:content]">
      {causes.every((l) => l.finding.rule === "settings_unchanged") && runs.length === 0 ? (
        <p className="text-sm text-slate-500">Nothing to say yet: a query running a second or more gets a verdict here.</p>
      ) : null}
      {causes.length ? (
        <ul className="space-y-1">
          {causes.map((line) => (
            <CauseItem key={line.finding.id} line={line} shown={pidsShown} />
          ))}
        </ul>
      ) : null}
      {runs.length ? (
        <table className="w-full table-fixed border-separate border-spacing-0 text-sm" data-testid="verdicts">
          <colgroup>
            <col className="w-[26%]" />
            <col className="w-[22%]" />
            <col className="w-[18%]" />
            <col className="w-[9%]" />
            <col />
            <col className="w-8" />
          </colgroup>
          <thead className="text-left text-[11px] uppercase tracking-wide text-slate-500">
            <tr>
              <th className="px-3 font-medium">running</th>
              <th className="px-2 font-medium">now</th>
              <th className="px-2 font-medium">scanned</th>
              <th className="px-2 font-medium">left</th>
              <th className="px-2 font-medium">lever</th>
              <td />
            </tr>
          </thead>
          {runs.map((line) => (
            <RunVerdict key={line.finding.id} line={line} onSelectRun={onSelectRun} heldBy={held.has(line.finding.pid ?? -1)} />
          ))}
        </table>
      ) : null}
      {more || all ? (
        <p className="pl-3 text-xs text-slate-600" data-testid="findings-more">
          {hidden > 0 && !all ? (
            <button
              type="button"
              className="underline decoration-slate-400 hover:text-slate-900"
              onClick={() => setAll(true)}
              data-testid="findings-show-more"
            >
              {more}
            </button>
          ) : all ? (
            <button type="button" className="underline decoration-slate-400 hover:text-slate-900" onClick={() => setAll(false)}>
              fewer{more ? ` (${more})` : ""}
            </button>
          ) : null}
        </p>
      ) : null}
    </section>
  );
});

/** The toggle that opens a finding's evidence: an icon, so the glance stays words of its own. */
function EvidenceToggle({ open, onToggle, controls }: { open: boolean; onToggle: () => void; controls: string }) {
  return (
    <button
      type="button"
      aria-expanded={open}
      aria-controls={controls}
      aria-label={open ? "hide the evidence" : "why: the evidence"}
      title={open ? "hide the evidence" : "why: the evidence"}
      onClick={onToggle}
      data-testid="finding-why"
      className="rounded p-0.5 text-slate-500 hover:bg-slate-200 hover:text-slate-900"
    >
      <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" className={`transition-transform ${open ? "rotate-90" : ""}`}>
        <path d="M6 3l5 5-5 5" fill="none" stroke="currentColor" strokeWidth="2" />
      </svg>
    </button>
  );
}

/** The finding's sentence: its evidence, in the DOM always (hidden until asked), so a search of the page finds it. */
function Evidence({ id, open, finding, since }: { id: string; open: boolean; finding: Finding; since: string | null }) {
  return (
    <p id={id} hidden={!open} data-testid="finding-evidence" className="text-[13px] leading-snug text-slate-700">
      <Sentence text={finding.text} />
      {since ? (
        <span className="ml-2 whitespace-nowrap text-xs text-slate-500" data-testid="finding-since">
          {since}
        </span>
      ) : null}
    </p>
  );
}

/** A server-wide cause: what, the lever, the running queries it holds back. */
function CauseItem({ line: { finding: f, since }, shown }: { line: FindingLine; shown: ReadonlySet<number | undefined> }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const holds = f.glance.holds ?? [];
  return (
    // "Server started at ..., nothing changed": the header says when; the line waits in the page for whoever looks.
    <li
      hidden={f.rule === "settings_unchanged"}
      data-testid="finding"
      data-rule={f.rule}
      data-severity={f.severity}
      data-run=""
      className={`rounded border border-slate-200 border-l-4 px-3 py-1 text-sm leading-snug ${SEVERITY_CLASSES[f.severity]}`}
    >
      <div className="flex items-start gap-2">
        <span
          className={`mt-0.5 inline-block shrink-0 rounded px-1.5 text-[11px] font-semibold uppercase tracking-wide ${LABEL_CLASSES[f.severity]}`}
        >
          {SEVERITY_LABELS[f.severity]}
        </span>
        <span className="min-w-0 flex-1" data-testid="finding-glance">
          {f.glance.now}
          {f.glance.lever ? (
            <>
              {" "}
              <span className={`${LEVER_CLASSES[f.severity]} ${ARROW}`} data-testid="finding-lever">
                {f.glance.lever}
              </span>
            </>
          ) : null}
          {holds.length ? (
            <span className="text-slate-600" data-testid="finding-holds" title={`holds back pid ${holds.join(", ")}`}>
              {" "}
              <span className={DOT}>holds back {holds.length === 1 ? "1 query" : `${holds.length} queries`}</span>
              {holds.some((p) => !shown.has(p)) ? "" : " below"}
            </span>
          ) : null}
        </span>
        <EvidenceToggle open={open} onToggle={() => setOpen(!open)} controls={id} />
      </div>
      <Evidence id={id} open={open} finding={f} since={since} />
    </li>
  );
}

/** A running query's verdict: the statement, what it does now, how far, how long left, the lever. */
function RunVerdict({
  line: { finding: f, since, href },
  onSelectRun,
  heldBy,
}: {
  line: FindingLine;
  onSelectRun: (runId: string) => void;
  heldBy: boolean;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const g = f.glance;
  const runId = f.runId!;
  const cell = "border-t border-slate-200 px-2 py-1 align-top";
  return (
    <tbody
      data-testid="finding"
      data-rule={f.rule}
      data-severity={f.severity}
      data-run={runId}
      data-left-ms={typeof f.evidence.etaMs === "number" ? f.evidence.etaMs : ""}
      className={SEVERITY_CLASSES[f.severity]}
    >
      <tr>
        <td className={`${cell} border-l-4 pl-3 ${SEVERITY_CLASSES[f.severity]}`} title={`${SEVERITY_LABELS[f.severity]}: pid ${f.pid}`}>
          {href ? (
            <a
              href={href}
              className="block truncate font-mono text-[12.5px] hover:underline"
              title="show this run in the query runs, with its timeline"
              data-testid="finding-quote"
              onClick={(e) => {
                if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                e.preventDefault();
                onSelectRun(runId);
                // The row exists once the table has this run (it lists running queries first).
                requestAnimationFrame(() =>
                  document.getElementById(`run-${runId}`)?.scrollIntoView({ block: "center", behavior: "smooth" }),
                );
              }}
            >
              {g.query}
            </a>
          ) : (
            g.query
          )}
        </td>
        <td className={cell} data-testid="verdict-now">
          {g.now}
        </td>
        <td className={`${cell} truncate tabular-nums`} data-testid="verdict-progress" title={g.progress ?? undefined}>
          {g.progress ?? <span className="text-slate-500">–</span>}
        </td>
        <td className={`${cell} tabular-nums`} data-testid="verdict-left">
          {g.left ?? <span className="text-slate-500">–</span>}
        </td>
        <td
          className={`${cell} ${LEVER_CLASSES[f.severity]}`}
          data-testid="finding-lever"
          title={heldBy ? `${g.lever ?? ""}: the cause above holds it back` : undefined}
        >
          {heldBy ? (
            <span className="before:mr-1 before:content-['↑']">above</span>
          ) : (
            (g.lever ?? <span className="font-normal text-slate-500">too early to tell</span>)
          )}
        </td>
        <td className={`${cell} text-right`}>
          <EvidenceToggle open={open} onToggle={() => setOpen(!open)} controls={id} />
        </td>
      </tr>
      <tr hidden={!open}>
        <td colSpan={6} className="border-l-4 border-l-transparent px-3 pb-1.5">
          <Evidence id={id} open={open} finding={f} since={since} />
        </td>
      </tr>
    </tbody>
  );
}
