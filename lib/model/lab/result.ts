// A lab's table as the history keeps it (pure): the LabResult the sizing
// view cites ("measured here: io_workers 1 -> 3: 5.5 s -> 4.4 s, 3 rounds each").
import type { LabLever, LabQuery } from "../../schemas/enums";
import type { LabMethodSummary, LabResult } from "../../schemas/lab";
import { valueOf } from "./summary";

export interface LabResultContext {
  at: number;
  lever: LabLever;
  /** the values asked for, in order */
  values: readonly string[];
  concurrency: number;
  rounds: number;
  query: LabQuery;
  sql: string;
  /** the io_method the server ran, for a lever other than io_method */
  ioMethod: string | null;
  serverVersion: string | null;
}

/** The result worth keeping: every value measured at least once (a lab stopped after some rounds too); null otherwise. */
export function labResult(summary: readonly LabMethodSummary[], c: LabResultContext): LabResult | null {
  const rows = c.values.map((value) => summary.find((s) => valueOf(s) === value));
  if (rows.length === 0 || rows.some((r) => r === undefined)) return null;
  return {
    at: c.at,
    lever: c.lever,
    rows: (rows as LabMethodSummary[]).map((s) => ({
      value: valueOf(s),
      runs: s.runs,
      medianMs: s.medianMs,
      minMs: s.minMs,
      maxMs: s.maxMs,
      readShare: s.readShare,
    })),
    concurrency: c.concurrency,
    rounds: c.rounds,
    query: c.query,
    sql: c.sql,
    ioMethod: c.lever === "io_method" ? null : c.ioMethod,
    serverVersion: c.serverVersion,
  };
}
