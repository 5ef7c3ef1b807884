// The queries state as changes: the server sends a viewer the whole list
// once, then what changed (issue 21: the whole list twice a second was
// 113 kB/s, nearly all of it ended runs that no longer change). The two
// functions are each other's inverse: apply(prev, diff(prev, next)) is next.
import type { QueryRun } from "../../schemas/runs";
import type { QueriesChanges, QueriesPayload } from "../../schemas/window";

/** A queries state with each run's serialised form, to compare the next one against. */
export interface SentQueries {
  payload: QueriesPayload;
  runs: ReadonlyMap<string, string>;
  statements: string;
}

/**
 * Each run's serialised form, kept with the run: the window hands out one
 * object per run until the run changes (runs.ts), so an ended run is
 * serialised once, not at every moment (twice a second while reads are in flight).
 */
const serialised = new WeakMap<QueryRun, string>();

function serialise(run: QueryRun): string {
  let text = serialised.get(run);
  if (text === undefined) serialised.set(run, (text = JSON.stringify(run)));
  return text;
}

export function sentQueries(payload: QueriesPayload): SentQueries {
  return { payload, runs: new Map(payload.queries.map((r) => [r.id, serialise(r)])), statements: JSON.stringify(payload.statements) };
}

/** What `next` changes of `prev`: the runs that differ, and the order and statements when they do. */
export function diffQueries(prev: SentQueries, next: SentQueries): QueriesChanges {
  const runs: QueryRun[] = next.payload.queries.filter((r) => prev.runs.get(r.id) !== next.runs.get(r.id));
  const changes: QueriesChanges = { asOf: next.payload.asOf, base: prev.payload.asOf, runs };
  const order = next.payload.queries.map((r) => r.id);
  const prevOrder = prev.payload.queries;
  if (order.length !== prevOrder.length || order.some((id, i) => prevOrder[i].id !== id)) changes.order = order;
  if (next.statements !== prev.statements) changes.statements = next.payload.statements;
  if (next.payload.statementsNote !== prev.payload.statementsNote) changes.statementsNote = next.payload.statementsNote;
  return changes;
}

/** The state `changes` describe, or null when they are not changes of `base` (another moment). */
export function applyQueryChanges(base: QueriesPayload, changes: QueriesChanges): QueriesPayload | null {
  if (changes.base !== base.asOf) return null;
  const byId = new Map(base.queries.map((r) => [r.id, r]));
  for (const r of changes.runs) byId.set(r.id, r);
  const order = changes.order ?? base.queries.map((r) => r.id);
  const queries: QueryRun[] = [];
  for (const id of order) {
    const run = byId.get(id);
    if (!run) return null;
    queries.push(run);
  }
  return {
    asOf: changes.asOf,
    queries,
    statements: changes.statements ?? base.statements,
    statementsNote: changes.statementsNote === undefined ? base.statementsNote : changes.statementsNote,
  };
}
