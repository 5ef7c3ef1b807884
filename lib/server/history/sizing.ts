import "server-only";
import { loadsBySecond } from "../../model/history/second-load";
import type { SizingResponse } from "../../schemas/sizing";
import { sizeLevers, type SizingInput } from "../../model/window/sizing";
import { totals } from "../../model/window/sizing/input";
import type { TargetWindow } from "../../model/window/window";
import { labResults } from "./lab-results";
import type { SampleStore } from "./samples";
import { methodMinutes } from "./method-minutes";
import { settingsTimeline } from "./settings-timeline";
import type { HistoryStore } from "./store";
import { redactLiterals } from "../payloads/redact";

// GET /api/targets/{id}/sizing (issue 41): the sizing model over a range of
// the target's history (its samples, the settings in force, the
// labs), or over the live window when the history is not kept.

export interface SizingRequest {
  target: string;
  from: number;
  to: number;
  redact: boolean;
}

/** The range's input from disk: its seconds that carry a load, its runs, its settings, and the labs the history keeps. */
export function historyInput(history: HistoryStore, samples: SampleStore, q: SizingRequest): SizingInput {
  const key = history.keyFor(q.target);
  const rows = samples.read(key, q.from, q.to);
  const seconds = rows.ticks.flatMap((t) => (t.load ? [{ t: Math.floor(t.t / 1000) * 1000, load: t.load }] : []));
  return {
    from: q.from,
    to: q.to,
    seconds,
    runs: rows.runs,
    settings: settingsTimeline(history, key, q.from, q.to),
    labs: labResults(history, key, q.to - history.retentionMs, q.to),
    minutes: methodMinutes(history, key, q.from, q.to),
  };
}

/** The live window's ticks and runs in the range, the settings now (the history is off: no timeline). */
export function liveInput(window: TargetWindow, history: HistoryStore, q: SizingRequest): SizingInput {
  const ticks = window.ticksFrom(q.from).filter((t) => t.t < q.to);
  const runs = window.queries().filter((r) => r.startedAt < q.to && (r.endedAt ?? r.lastSeen) >= q.from);
  const key = history.keyFor(q.target);
  return {
    from: q.from,
    to: q.to,
    seconds: loadsBySecond(ticks),
    runs,
    settings: [{ t: q.from, settings: window.settings }],
    labs: labResults(history, key, q.to - history.retentionMs, q.to),
  };
}

export function sizingPayload(input: SizingInput, q: SizingRequest, source: SizingResponse["source"], note: string | null): SizingResponse {
  // Literals go before the model sees the text: the statements and the figures that quote them read it redacted.
  const redacted = (): SizingInput => ({
    ...input,
    runs: input.runs.map((r) => ({ ...r, query: redactLiterals(r.query) })),
    minutes: input.minutes && {
      ...input.minutes,
      texts: new Map([...input.minutes.texts].map(([id, text]) => [id, redactLiterals(text)])),
    },
  });
  const levers = sizeLevers(q.redact ? redacted() : input);
  const sampledMs = totals(input.seconds).sampledMs;
  const empty =
    sampledMs === 0
      ? "No second of this range carries its load on disk: inflight was not running, or kept it before it counted each second's samples."
      : null;
  return { target: q.target, from: q.from, to: q.to, source, sampledMs, levers, note: note ?? (source === "history" ? empty : null) };
}
