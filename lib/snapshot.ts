import "server-only";
import type { Collector } from "./collector/collector";
import { redactQuery } from "./redact";
import type { QueryRun, StatementStat, WindowSnapshot } from "./schemas/window";

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

export function redactRuns(runs: QueryRun[], statements: StatementStat[]): QueryRun[] {
  const normalised = new Map(statements.map((s) => [s.queryId, s.query]));
  return runs.map((r) => ({ ...r, query: redactQuery(r.query, r.queryId ? normalised.get(r.queryId) : undefined) }));
}

/** The window of one target as the wire contract has it. */
export function windowSnapshot(collector: Collector, range: SnapshotRange, redact: boolean): WindowSnapshot {
  const w = collector.window;
  const runs = w.queries().filter((r) => (range.from === undefined || (r.endedAt ?? Infinity) >= range.from) && (range.to === undefined || r.startedAt <= range.to));
  return {
    target: collector.info(),
    lastSeq: w.lastSeq,
    ticks: inRange(w.ticks.toArray(), range),
    io: inRange(w.io.toArray(), range),
    settings: w.settings,
    checks: w.checks,
    restarts: w.restarts,
    queries: redact ? redactRuns(runs, w.statements) : runs,
    statements: w.statements,
    statementsNote: w.statementsNote,
    outages: w.outages,
  };
}
