import type { RestartSummary } from "@/lib/schemas/compare";
import { restartLine } from "@/lib/view/compare";

/** Under a fleet row's io_method: the last restart, what it changed, and how the statements fared. */
export function RestartLine({ summary, now }: { summary: RestartSummary | null | undefined; now: number | null }) {
  if (!summary) return null;
  const slower = (summary.counts?.slower ?? 0) > 0;
  return (
    <div className={`mt-0.5 max-w-xs font-sans text-xs ${slower ? "text-red-700" : "text-slate-500"}`} data-testid="fleet-restart">
      {restartLine(summary, now)}
    </div>
  );
}
