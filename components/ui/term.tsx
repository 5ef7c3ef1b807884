"use client";
import { createContext, use, type ReactNode } from "react";
import { gloss, glossText, sentenceParts, type Term as TermId, type TextPart } from "@/lib/view/glossary";

/** The major of the target a page shows (its hints follow it); null where none is (the fleet of several). */
export const MajorContext = createContext<number | null>(null);

/** A term with its plain explanation on hover (a dotted underline, the text as its title). */
export function Term({ term, children }: { term: TermId; children?: ReactNode }) {
  return (
    <abbr
      title={gloss(term, use(MajorContext))}
      data-term={term}
      className="cursor-help underline decoration-slate-400 decoration-dotted underline-offset-2"
    >
      {children ?? term}
    </abbr>
  );
}

function Parts({ parts }: { parts: readonly TextPart[] }) {
  return (
    <>
      {parts.map((p, i) =>
        p.code ? (
          <code key={i} className="rounded bg-slate-100 px-1 font-mono text-[0.92em] text-slate-800" data-testid="finding-quote">
            {p.text}
          </code>
        ) : p.term ? (
          <Term key={i} term={p.term}>
            {p.text}
          </Term>
        ) : (
          p.text
        ),
      )}
    </>
  );
}

/** Running text with the glossary's terms explained where they appear. Text only, never HTML. */
export function Glossed({ text }: { text: string }) {
  return <Parts parts={glossText(text)} />;
}

/** A finding's sentence: quoted queries in monospace, terms explained. */
export function Sentence({ text }: { text: string }) {
  return <Parts parts={sentenceParts(text)} />;
}
