"use client";
import { useState } from "react";
import { HISTORY_SPANS } from "@/lib/view/history";
import type { FrozenView } from "@/lib/view/view";
import { PLAIN, PRESSED } from "./buttons";
import type { TimeDomain } from "@/lib/view/time";

export interface HistoryActions {
  onHistory: (ms: number) => void;
  onRange: (range: TimeDomain) => void;
}

const pad = (n: number) => String(n).padStart(2, "0");
/** ms -> the value of an <input type="datetime-local"> (local time, to the second). */
function localInput(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** The range picker beyond the window: the last hour, 6 hours, a day, or a range of one's own, from disk. */
export function HistoryPicker({ frozen, actions }: { frozen: FrozenView | null; actions: HistoryActions }) {
  const [custom, setCustom] = useState<{ from: string; to: string } | null>(null);
  const span = frozen?.history ? frozen.to - frozen.from : null;
  const from = custom ? Date.parse(custom.from) : Number.NaN;
  const to = custom ? Date.parse(custom.to) : Number.NaN;
  const valid = Number.isFinite(from) && Number.isFinite(to) && from < to;
  return (
    <details className="relative" open={custom !== null || undefined} data-testid="history-picker">
      <summary
        className={`${span !== null ? PRESSED : PLAIN} cursor-pointer list-none`}
        title="a range from the history on disk: the last hour, 6 hours, a day, or one of your own"
      >
        history ▾
      </summary>
      <div
        className="absolute right-0 z-20 mt-1 flex items-center gap-1 whitespace-nowrap rounded border border-slate-200 bg-white p-1.5 shadow-lg"
        role="group"
        aria-label="history range"
      >
        {HISTORY_SPANS.map((s) => (
          <button
            key={s.id}
            type="button"
            data-testid={`history-${s.id}`}
            onClick={() => actions.onHistory(s.ms)}
            aria-pressed={span === s.ms}
            className={span === s.ms ? PRESSED : PLAIN}
          >
            {s.label}
          </button>
        ))}
        {custom ? (
          <form
            className="flex items-center gap-1"
            onSubmit={(e) => {
              e.preventDefault();
              if (valid) actions.onRange({ from, to });
            }}
          >
            <input
              type="datetime-local"
              step={1}
              aria-label="from"
              data-testid="history-from"
              value={custom.from}
              onChange={(e) => setCustom({ ...custom, from: e.target.value })}
              className="rounded border border-slate-300 px-1"
            />
            <span aria-hidden>–</span>
            <input
              type="datetime-local"
              step={1}
              aria-label="to"
              data-testid="history-to"
              value={custom.to}
              onChange={(e) => setCustom({ ...custom, to: e.target.value })}
              className="rounded border border-slate-300 px-1"
            />
            <button
              type="submit"
              disabled={!valid}
              className={PLAIN}
              title={valid ? "read this range from disk" : "from must be before to"}
            >
              open
            </button>
          </form>
        ) : (
          <button
            type="button"
            data-testid="history-custom"
            className={PLAIN}
            onClick={() =>
              setCustom({ from: localInput((frozen?.from ?? Date.now()) - 3_600_000), to: localInput(frozen?.to ?? Date.now()) })
            }
          >
            custom…
          </button>
        )}
      </div>
    </details>
  );
}
