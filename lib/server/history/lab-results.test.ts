// The labs' results in the history file, against real SQLite in a temp
// folder: what a lab recorded comes back by range across a reopen, and
// retention drops it with the rest.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LabResult } from "../../schemas/lab";
import { labResults, recordLabResult } from "./lab-results";
import { HistoryStore, type HistoryOptions } from "./store";

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const DAY = 24 * 3_600_000;

const result = (at: number, lever: LabResult["lever"] = "io_workers"): LabResult => ({
  at,
  lever,
  rows: [
    { value: "1", runs: 3, medianMs: 5500, minMs: 5300, maxMs: 5700, readShare: 0.8 },
    { value: "3", runs: 3, medianMs: 4400, minMs: 4200, maxMs: 4700, readShare: 0.6 },
  ],
  concurrency: 4,
  rounds: 3,
  query: "seq",
  sql: "SELECT count(*) FROM readings",
  ioMethod: "worker",
  serverVersion: "18.4",
});

describe("lab results in the history", () => {
  let dir: string;
  const opts = (extra: Partial<HistoryOptions> = {}): HistoryOptions => ({
    file: path.join(dir, "history.db"),
    retentionMs: 7 * DAY,
    maxBytes: 64 * 1024 * 1024,
    log: () => undefined,
    ...extra,
  });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "inflight-lab-results-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("comes back by range and history, oldest first, after a reopen", () => {
    const store = HistoryStore.open(opts());
    recordLabResult(store, "h1", result(T0 + 2000, "effective_io_concurrency"));
    recordLabResult(store, "h1", result(T0 + 1000));
    recordLabResult(store, "h2", result(T0 + 1500));
    store.close();
    const again = HistoryStore.open(opts());
    expect(labResults(again, "h1", T0, T0 + 5000).map((r) => [r.at, r.lever])).toEqual([
      [T0 + 1000, "io_workers"],
      [T0 + 2000, "effective_io_concurrency"],
    ]);
    expect(labResults(again, "h1", T0 + 1500, T0 + 5000)).toHaveLength(1);
    expect(labResults(again, "h1", T0, T0 + 5000)[0]).toEqual(result(T0 + 1000));
    again.close();
  });

  it("goes with retention", () => {
    const store = HistoryStore.open(opts({ retentionMs: DAY }));
    recordLabResult(store, "h1", result(T0));
    recordLabResult(store, "h1", result(T0 + 2 * DAY));
    store.prune(T0 + 2 * DAY + 1000);
    expect(labResults(store, "h1", 0, T0 + 3 * DAY).map((r) => r.at)).toEqual([T0 + 2 * DAY]);
    store.close();
  });

  it("reads nothing while the history is off", () => {
    const store = HistoryStore.off(opts(), "asked to");
    recordLabResult(store, "h1", result(T0));
    expect(labResults(store, "h1", 0, T0 + DAY)).toEqual([]);
  });
});
