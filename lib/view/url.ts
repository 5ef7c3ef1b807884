// The target page's selection in its URL: the time range (a live span, or a
// frozen from-to in server ms) and the selected query run. Each parameter is
// parsed on its own: a bad one is dropped, the others still apply.
import { z } from "zod";
import { VIEW_SPANS, type TimeDomain, type ViewSpanId } from "./time";

export interface ViewParams {
  /** the live span; ignored when a range is given */
  view: ViewSpanId | null;
  /** a frozen range, server time */
  range: TimeDomain | null;
  /** the selected run's id */
  run: string | null;
}

const VIEW_IDS = VIEW_SPANS.map((s) => s.id) as [ViewSpanId, ...ViewSpanId[]];
const View = z.enum(VIEW_IDS);
const Ms = z
  .string()
  .regex(/^\d{1,16}$/)
  .transform(Number)
  .refine(Number.isSafeInteger);
const Range = z.object({ from: Ms, to: Ms }).refine((r) => r.from < r.to);
/** `${pid}:${queryStartMs}`, as lib/model/window/derive.ts names runs */
const RunId = z.string().regex(/^\d{1,10}:\d{1,16}$/);

type Search = URLSearchParams | Record<string, string | string[] | undefined>;

function param(search: Search, name: string): string | undefined {
  if (search instanceof URLSearchParams) return search.get(name) ?? undefined;
  const v = search[name];
  // A repeated parameter is ambiguous: take none of it.
  return typeof v === "string" ? v : undefined;
}

/** From location.search or from a page's searchParams (Next). */
export function parseViewParams(search: Search | string): ViewParams {
  const s = typeof search === "string" ? new URLSearchParams(search) : search;
  const view = View.safeParse(param(s, "view"));
  const range = Range.safeParse({ from: param(s, "from"), to: param(s, "to") });
  const run = RunId.safeParse(param(s, "run"));
  return {
    view: view.success ? view.data : null,
    range: range.success ? range.data : null,
    run: run.success ? run.data : null,
  };
}

/** The query string (no "?"): from&to when a range is frozen, else view; then run. */
export function formatViewParams(p: ViewParams): string {
  const out = new URLSearchParams();
  if (p.range) {
    out.set("from", String(Math.round(p.range.from)));
    out.set("to", String(Math.round(p.range.to)));
  } else if (p.view) {
    out.set("view", p.view);
  }
  if (p.run) out.set("run", p.run);
  return out.toString();
}

/** Export of the window, or of the frozen range only. */
export function exportUrl(id: string, format: "json" | "csv", range: TimeDomain | null): string {
  const q = new URLSearchParams({ format });
  if (range) {
    q.set("from", String(Math.floor(range.from)));
    q.set("to", String(Math.ceil(range.to)));
  }
  return `/api/targets/${encodeURIComponent(id)}/export?${q}`;
}
