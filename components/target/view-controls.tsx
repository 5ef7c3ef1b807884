"use client";
import { useState } from "react";
import { useChannel, useLiveStore, usePageNow } from "@/lib/client/hooks";
import { formatAgo, formatClock, formatDuration } from "@/lib/format";
import { VIEW_SPANS, type ViewSpanId } from "@/lib/view/time";
import { exportUrl } from "@/lib/view/url";
import { rangeOutsideFrame, type FrozenView } from "@/lib/view/view";
import type { HistoryLoad } from "@/lib/client/use-history";
import { BUTTON, PLAIN, PRESSED } from "./buttons";
import { HistoryPicker, type HistoryActions } from "./history-picker";

/** `onHistory`: the last `ms` up to the newest sample; `onRange`: a range beyond the window, read from disk. */
export interface ViewActions extends HistoryActions {
  onSpan: (span: ViewSpanId) => void;
  onFreeze: () => void;
  onLive: () => void;
  onResetZoom: () => void;
}

/** The span shown, freeze / live, exports of what is shown, and a link to it. */
export function ViewControls({
  id,
  windowMs,
  span,
  frozen,
  actions,
}: {
  id: string;
  windowMs: number;
  span: ViewSpanId;
  frozen: FrozenView | null;
  actions: ViewActions;
}) {
  const range = frozen ? { from: frozen.from, to: frozen.to } : null;
  return (
    <div className="ml-auto flex flex-wrap items-center gap-1 text-xs">
      <div className="flex items-center gap-1" role="group" aria-label="time range">
        {VIEW_SPANS.map((s) => (
          <button
            key={s.id}
            type="button"
            onClick={() => actions.onSpan(s.id)}
            aria-pressed={!frozen && span === s.id}
            className={!frozen && span === s.id ? PRESSED : PLAIN}
          >
            {s.ms === null ? `${Math.round(windowMs / 60_000)} min` : s.label}
          </button>
        ))}
      </div>
      <HistoryPicker frozen={frozen} actions={actions} />
      <span className="mx-1 h-4 w-px bg-slate-300" aria-hidden />
      {frozen ? (
        <button
          type="button"
          data-testid="view-live"
          onClick={actions.onLive}
          className={`${BUTTON} bg-emerald-600 font-medium text-white ring-emerald-700 hover:bg-emerald-700`}
        >
          ▶ Live
        </button>
      ) : (
        <button
          type="button"
          data-testid="view-freeze"
          onClick={actions.onFreeze}
          className={PLAIN}
          title="Stop the charts and the query table here; the stream goes on in the background"
        >
          ❚❚ Freeze
        </button>
      )}
      {frozen?.zoomed ? (
        <button type="button" data-testid="view-reset-zoom" onClick={actions.onResetZoom} className={PLAIN}>
          reset zoom
        </button>
      ) : null}
      <span className="mx-1 h-4 w-px bg-slate-300" aria-hidden />
      <details className="relative" data-testid="share">
        <summary className={`${PLAIN} cursor-pointer list-none`} title="export what is shown, or copy a link to it">
          Share ▾
        </summary>
        <div className="absolute right-0 z-20 mt-1 flex flex-col gap-1 rounded border border-slate-200 bg-white p-1.5 shadow-lg">
          <a
            href={exportUrl(id, "json", range)}
            download
            data-testid="export-json"
            className={PLAIN}
            title={range ? "the frozen range as JSON" : "the whole window as JSON"}
          >
            Export JSON
          </a>
          <a
            href={exportUrl(id, "csv", range)}
            download
            data-testid="export-csv"
            className={PLAIN}
            title={range ? "the ticks of the frozen range as CSV" : "the window's ticks as CSV"}
          >
            Export CSV
          </a>
          <CopyLink />
        </div>
      </details>
    </div>
  );
}

function CopyLink() {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(window.location.href);
      setState("copied");
    } catch {
      // No clipboard (an insecure origin, or denied): the address bar has the same link.
      setState("failed");
    }
    setTimeout(() => setState("idle"), 2000);
  };
  return (
    <button
      type="button"
      data-testid="copy-link"
      onClick={() => void copy()}
      className={PLAIN}
      title="Copy a link to this view: the range shown and the selected run"
    >
      {state === "copied" ? "Link copied" : state === "failed" ? "Copy failed: use the address bar" : "Copy link"}
    </button>
  );
}

/** Says that the view is frozen, since when, on what, and how much arrived meanwhile. */
export function FrozenBar({ frozen, history, actions }: { frozen: FrozenView; history: HistoryLoad; actions: ViewActions }) {
  const now = usePageNow();
  const store = useLiveStore();
  // Re-rendered with the header's tick (1-2 Hz): the count below reads the store's counter.
  useChannel("latest");
  const windowMs = useChannel("target")?.windowMs;
  const newTicks = store.ticksReceived - frozen.ticksAtFreeze;
  const outside = rangeOutsideFrame(frozen.frame, frozen);
  return (
    <div
      role="status"
      data-testid="frozen-bar"
      data-from={frozen.from}
      data-to={frozen.to}
      data-zoomed={frozen.zoomed}
      className="sticky top-0 z-10 flex flex-wrap items-center gap-x-3 gap-y-1 rounded-lg border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-950 shadow-sm"
    >
      <span className="font-semibold">❚❚ {frozen.zoomed ? "Zoomed and frozen" : "Frozen"}</span>
      <span className="tabular-nums" data-testid="frozen-range">
        showing {formatClock(frozen.from)} – {formatClock(frozen.to)} ({formatDuration(frozen.to - frozen.from)})
      </span>
      <span className="text-sky-800">
        since {formatClock(frozen.frozenAt)}
        {now !== null ? ` (${formatAgo(frozen.frozenAt, now)})` : ""}
      </span>
      <span className="tabular-nums" data-testid="frozen-new-ticks" data-count={newTicks}>
        {newTicks} new tick{newTicks === 1 ? "" : "s"} arrived meanwhile
      </span>
      <HistoryState frozen={frozen} history={history} />
      {outside && history.state !== "loading" ? (
        <span className="text-amber-800" data-testid="frozen-outside">
          No sample of this range is in the window{windowMs ? ` (the last ${formatDuration(windowMs)})` : ""}
          {frozen.history ? " or on disk" : ""}: there is nothing to show.
        </span>
      ) : null}
      <span className="text-xs text-sky-800">Charts and query runs are frozen; statements and settings stay live.</span>
      <span className="ml-auto flex gap-1 text-xs">
        {frozen.zoomed ? (
          <button type="button" onClick={actions.onResetZoom} className={PLAIN}>
            reset zoom
          </button>
        ) : null}
        <button
          type="button"
          onClick={actions.onLive}
          className={`${BUTTON} bg-emerald-600 font-medium text-white ring-emerald-700 hover:bg-emerald-700`}
        >
          ▶ Live
        </button>
      </span>
    </div>
  );
}

/** Where the frozen range comes from beyond the window: being read from disk, read (a tick a second), or why not. */
function HistoryState({ frozen, history }: { frozen: FrozenView; history: HistoryLoad }) {
  if (history.state === "loading")
    return (
      <span data-testid="history-state" data-state="loading">
        reading the range from disk…
      </span>
    );
  if (history.state === "error") {
    return (
      <span className="text-amber-800" data-testid="history-state" data-state="error">
        The range could not be read from disk: {history.message}
      </span>
    );
  }
  if (!frozen.history) return null;
  return (
    <span data-testid="history-state" data-state="ready" data-seconds={frozen.history.seconds}>
      {frozen.history.seconds > 0
        ? `before the window: from disk, a tick a second (${frozen.history.seconds} s kept)`
        : "nothing of it before the window is on disk"}
      {frozen.history.note ? `. ${frozen.history.note}` : ""}
    </span>
  );
}
