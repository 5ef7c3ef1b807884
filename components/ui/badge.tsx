import type { ReactNode } from "react";

export const TONES = {
  ok: "bg-emerald-50 text-emerald-800 ring-emerald-600/30",
  warn: "bg-amber-50 text-amber-800 ring-amber-600/30",
  bad: "bg-red-50 text-red-800 ring-red-600/30",
  info: "bg-blue-50 text-blue-800 ring-blue-600/30",
  muted: "bg-slate-100 text-slate-700 ring-slate-500/20",
} as const;
export type Tone = keyof typeof TONES;

export function Badge({
  tone,
  children,
  title,
  testId,
  data,
}: {
  tone: Tone;
  children: ReactNode;
  title?: string;
  testId?: string;
  data?: Record<`data-${string}`, string>;
}) {
  return (
    <span
      title={title}
      data-testid={testId}
      {...data}
      className={`inline-flex items-center whitespace-nowrap rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}
