import type { SizingLeverVerdict } from "@/lib/schemas/sizing";
import type { SizingVerdict } from "@/lib/schemas/enums";
import { VERDICT_WORDS, labHint } from "@/lib/view/sizing";
import { formatClock, formatDuration } from "@/lib/format";
import { Badge, type Tone } from "@/components/ui/badge";
import { QueryText } from "@/components/ui/query-text";

const VERDICT_TONES = { raise: "bad", lower: "warn", change: "bad", leave: "ok", unknown: "muted" } as const satisfies Record<
  SizingVerdict,
  Tone
>;

/** One lever: the verdict in one line, what the lab measured here under it, the evidence on demand (the figures, the statements it would help, how to prove it). */
export function SizingLeverRow({ lever: l, demo }: { lever: SizingLeverVerdict; demo: boolean }) {
  const hint = l.verdict === "raise" || l.verdict === "lower" || l.verdict === "change" ? labHint(l.lever, demo) : null;
  return (
    <li className="py-2" data-testid="sizing-lever" data-lever={l.lever} data-verdict={l.verdict}>
      <div className="flex flex-wrap items-baseline gap-2">
        <Badge tone={VERDICT_TONES[l.verdict]} testId="sizing-verdict">
          {VERDICT_WORDS[l.verdict]}
        </Badge>
        <span className="text-sm font-medium text-slate-900" data-testid="sizing-headline">
          {l.headline}
        </span>
      </div>
      {l.lab.map((x) => (
        <p key={x.at} className="mt-0.5 pl-1 text-xs text-slate-800" data-testid="sizing-lab" data-at={x.at}>
          {x.text} ({formatClock(x.at)})
        </p>
      ))}
      <details className="mt-1 pl-1 text-xs text-slate-700">
        <summary className="cursor-pointer text-slate-500" data-testid="sizing-reason">
          {l.reason}
        </summary>
        <ul className="mt-1 list-disc space-y-0.5 pl-5">
          {l.figures.map((f, i) => (
            <li key={i} data-testid="sizing-figure">
              {f.text}
            </li>
          ))}
        </ul>
        {l.statements.length ? (
          <div className="mt-1">
            <p className="text-slate-500">would help:</p>
            <ul className="space-y-1 pl-2">
              {l.statements.map((s) => (
                <li key={s.queryId ?? s.query} data-testid="sizing-statement">
                  <QueryText text={s.query} />
                  <span className="text-slate-500">
                    {s.runs} run{s.runs === 1 ? "" : "s"}, {formatDuration(s.totalMs)} in all
                  </span>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {hint ? (
          <p className="mt-1 text-blue-800" data-testid="sizing-lab-hint">
            {hint}
          </p>
        ) : null}
      </details>
    </li>
  );
}
