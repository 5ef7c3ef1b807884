import "server-only";
import type { QueryRun } from "../../schemas/runs";
import type { FindingsPayload } from "../../schemas/findings";
import type { OutagesPayload, QueriesPayload, SettingsPayload, WindowSnapshot } from "../../schemas/window";
import type { TargetWindow } from "../../window/window";
import { redactLiterals, redactRuns } from "./redact";
import type { PayloadSource } from "./source";

// The one builder of each payload of a target's window: the SSE events and
// the JSON snapshot (/window, /export) are made here and nowhere else, with
// redaction applied here once.

/** Ended runs a queries event carries; the /window snapshot has them all. */
export const STREAMED_ENDED_RUNS = 100;

export function settingsPayload(w: TargetWindow): SettingsPayload {
  return { settings: { ...w.settings }, checks: [...w.checks], restarts: [...w.restarts], reloads: [...w.reloads] };
}

/** Findings cite query text: redacted like the runs when INFLIGHT_REDACT is on. */
export function findingsPayload(source: PayloadSource): FindingsPayload {
  const f = source.window.findings;
  if (!source.redact) return { asOf: f.asOf, findings: [...f.findings], moreRuns: f.moreRuns };
  const runs = new Map(redactRuns(source.window.queries(), source.window.statements).map((r) => [r.id, r]));
  return {
    asOf: f.asOf,
    findings: f.findings.map((x) => {
      if (!x.runId) return x.queryId ? { ...x, text: redactBackticks(x.text, source.window.statements.find((s) => s.queryId === x.queryId)?.query) } : x;
      const run = runs.get(x.runId);
      return { ...x, text: redactBackticks(x.text, run?.query) };
    }),
    moreRuns: f.moreRuns,
  };
}

/** The quoted query in a sentence, replaced by its redacted text. */
function redactBackticks(text: string, redacted: string | undefined): string {
  return text.replace(/`[^`]*`/, () => `\`${redactLiterals((redacted ?? "").replace(/\s+/g, " ").trim().slice(0, 59))}\``);
}

export function outagesPayload(w: TargetWindow): OutagesPayload {
  return { outages: w.outages.map((o) => ({ ...o })) };
}

function queriesOf(w: TargetWindow, runs: QueryRun[], redact: boolean): QueriesPayload {
  const statements = [...w.statements];
  // The moment of the findings: the runs are as the findings last saw them.
  return { asOf: w.findings.asOf, queries: redact ? redactRuns(runs, statements) : runs, statements, statementsNote: w.statementsNote };
}

/** The running runs and the newest ended ones: what a queries event carries. */
export function queriesPayload(source: PayloadSource): QueriesPayload {
  const runs = source.window.queries();
  const running = runs.filter((r) => r.endedAt === null);
  const ended = runs.filter((r) => r.endedAt !== null).slice(0, STREAMED_ENDED_RUNS);
  return queriesOf(source.window, [...running, ...ended], source.redact);
}

export interface SnapshotRange {
  /** only replayable items with seq above this */
  since?: number;
  /** ms bounds on t */
  from?: number;
  to?: number;
}

function inRange<T extends { t: number; seq: number }>(items: T[], range: SnapshotRange): T[] {
  return items.filter(
    (i) => (range.since === undefined || i.seq > range.since) && (range.from === undefined || i.t >= range.from) && (range.to === undefined || i.t <= range.to),
  );
}

/** The window of one target (or a range of it) as the wire contract has it. */
export function snapshotPayload(source: PayloadSource, range: SnapshotRange = {}): WindowSnapshot {
  const w = source.window;
  const runs = w.queries().filter((r) => (range.from === undefined || (r.endedAt ?? Infinity) >= range.from) && (range.to === undefined || r.startedAt <= range.to));
  return {
    target: source.info(),
    lastSeq: w.lastSeq,
    ticks: inRange(w.allTicks(), range),
    io: inRange(w.allIo(), range),
    ...settingsPayload(w),
    ...queriesOf(w, runs, source.redact),
    ...outagesPayload(w),
    ...findingsPayload(source),
  };
}
