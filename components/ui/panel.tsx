import type { ReactNode } from "react";

/** A titled card; `wide` spans both columns of the page grid. */
export function Panel({
  title,
  subtitle,
  actions,
  wide,
  children,
  testId,
}: {
  title: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
  wide?: boolean;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <section
      data-testid={testId}
      className={`min-w-0 [contain:content] rounded-lg border border-slate-200 bg-white p-3 shadow-sm ${wide ? "xl:col-span-2" : ""}`}
    >
      <header className="mb-2 flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <div className="min-w-0">
          <h2 className="text-sm font-semibold text-slate-800">{title}</h2>
          {subtitle ? <p className="text-xs text-slate-500">{subtitle}</p> : null}
        </div>
        {actions ? <div className="flex items-center gap-2 text-xs">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}
