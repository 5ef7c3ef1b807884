import { describe, expect, it } from "vitest";
import { run } from "../../../test/support/fixtures";
import type { QueriesPayload } from "../../schemas/window";
import { applyQueryChanges, diffQueries, sentQueries } from "./query-changes";

const state = (asOf: number, queries: QueriesPayload["queries"], statementsNote: string | null = null): QueriesPayload => ({
  asOf,
  queries,
  statements: [],
  statementsNote,
});

describe("query changes", () => {
  const ended = Array.from({ length: 100 }, (_, i) => run({ id: `e${i}`, endedAt: 1000 - i }));
  const prev = state(1, [run({ id: "a", endedAt: null, samples: 3 }), ...ended]);

  it("carry the runs that changed, and the order only when it did", () => {
    const next = state(2, [run({ id: "a", endedAt: null, samples: 4 }), ...ended]);
    const changes = diffQueries(sentQueries(prev), sentQueries(next));
    expect(changes.runs.map((r) => r.id)).toEqual(["a"]);
    expect(changes.order).toBeUndefined();
    expect(changes.statements).toBeUndefined();
    expect(applyQueryChanges(prev, changes)).toEqual(next);
  });

  it("say where a run ended, a new one went and an old one was evicted", () => {
    const next = state(2, [run({ id: "b", endedAt: null }), run({ id: "a", endedAt: 1500, samples: 9 }), ...ended.slice(0, 99)], "reset");
    const changes = diffQueries(sentQueries(prev), sentQueries(next));
    expect(changes.runs.map((r) => r.id)).toEqual(["b", "a"]);
    expect(changes.order).toEqual(next.queries.map((r) => r.id));
    expect(changes.statementsNote).toBe("reset");
    expect(applyQueryChanges(prev, changes)).toEqual(next);
  });

  it("are refused by a state they were not made against", () => {
    const changes = diffQueries(sentQueries(prev), sentQueries(state(2, prev.queries)));
    expect(applyQueryChanges(state(7, prev.queries), changes)).toBeNull();
  });
});
