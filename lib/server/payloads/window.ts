import "server-only";
import type { QueryRun, StatementStat } from "../../schemas/runs";
import type { Finding, FindingsPayload } from "../../schemas/findings";
import type { OutagesPayload, QueriesPayload, SettingsPayload, WindowSnapshot } from "../../schemas/window";
import type { TargetWindow } from "../../model/window/window";
import { queryGlance } from "../../model/window/findings/glance";
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
  return { asOf: f.asOf, findings: redactFindings(f.findings, source.window.queries(), source.window.statements), moreRuns: f.moreRuns };
}

/** A finding's quoted query (its sentence, its glance) as the redacted runs and statements have it. */
export function redactFindings<F extends Pick<Finding, "text" | "runId" | "queryId"> & { glance?: Finding["glance"] }>(
  findings: readonly F[],
  runs: readonly QueryRun[],
  statements: readonly StatementStat[],
): F[] {
  const redacted = new Map(redactRuns([...runs], statements).map((r) => [r.id, r]));
  return findings.map((x) => {
    if (!x.runId) {
      if (!x.queryId) return x;
      const query = statements.find((s) => s.queryId === x.queryId)?.query;
      return {
        ...x,
        text: redactBackticks(x.text, query),
        ...(x.glance ? { glance: { ...x.glance, now: redactBackticks(x.glance.now, query) } } : {}),
      };
    }
    const query = redacted.get(x.runId)?.query;
    return {
      ...x,
      text: redactBackticks(x.text, query),
      ...(x.glance ? { glance: { ...x.glance, query: queryGlance(query ?? "") } } : {}),
    };
  });
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
    (i) =>
      (range.since === undefined || i.seq > range.since) &&
      (range.from === undefined || i.t >= range.from) &&
      (range.to === undefined || i.t <= range.to),
  );
}

/** The window of one target (or a range of it) as the wire contract has it. */
export function snapshotPayload(source: PayloadSource, range: SnapshotRange = {}): WindowSnapshot {
  const w = source.window;
  const runs = w
    .queries()
    .filter(
      (r) => (range.from === undefined || (r.endedAt ?? Infinity) >= range.from) && (range.to === undefined || r.startedAt <= range.to),
    );
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
