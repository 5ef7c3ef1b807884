import type { ReactNode } from "react";
import type { Term as TermId } from "@/lib/view/glossary";
import { Glossed, Term } from "@/components/ui/term";

export interface LegendEntry {
  label: string;
  color: string;
  /** dashed line rather than a filled swatch */
  dashed?: boolean;
  line?: boolean;
  /** the label names this glossary term: explained on hover */
  term?: TermId;
}

/** Legend in HTML (cheaper to style than recharts' own, and readable at a glance). */
export function Legend({ items }: { items: readonly LegendEntry[] }) {
  return (
    <ul className="mb-1 flex flex-wrap gap-x-3 gap-y-0.5 text-[11px] text-slate-600">
      {items.map((i) => (
        <li key={i.label} className="flex items-center gap-1">
          <span
            aria-hidden
            className="inline-block"
            style={
              i.line || i.dashed
                ? { width: 14, height: 0, borderTop: `2px ${i.dashed ? "dashed" : "solid"} ${i.color}` }
                : { width: 10, height: 10, background: i.color, borderRadius: 2 }
            }
          />
          <span>{i.term ? <Term term={i.term}>{i.label}</Term> : <Glossed text={i.label} />}</span>
        </li>
      ))}
    </ul>
  );
}

/** The chart, with a message over it when there is nothing to draw, saying why. */
export function ChartBody({ empty, children }: { empty: string | null; children: ReactNode }) {
  return (
    <div className="relative">
      {children}
      {empty ? (
        <div className="pointer-events-none absolute inset-0 flex items-center justify-center px-8 text-center text-sm text-slate-500">
          <span className="rounded bg-white/85 px-2 py-1">{empty}</span>
        </div>
      ) : null}
    </div>
  );
}
