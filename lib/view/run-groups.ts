// Sub-second repeats of one statement as one row ("64 runs under 1 s of
// select count(*) from t"), so they never bury the slow running query.
import type { QueryRun, Verdict } from "@/lib/schemas/runs";

/** Ended runs shorter than this are grouped by statement. */
export const SHORT_RUN_MS = 1000;
/** A statement needs this many short runs for a group; fewer stay rows of their own. */
export const MIN_GROUP = 2;

export interface RunGroup {
  key: string;
  query: string;
  runs: QueryRun[];
  /** "64 runs under 1 s" */
  title: string;
  /** runs by verdict */
  verdicts: Partial<Record<Verdict, number>>;
  totalMs: number;
  lastEndedAt: number;
}

export type RunTableRow = { kind: "run"; run: QueryRun } | { kind: "group"; group: RunGroup };

const isShort = (r: QueryRun) => r.endedAt !== null && r.endedAt - r.startedAt < SHORT_RUN_MS;
const groupKey = (r: QueryRun) => r.queryId ?? `text:${r.query.replace(/\s+/g, " ").trim()}`;

/**
 * `sorted` in table order: each group takes the place of its first member;
 * running and longer runs keep their own rows.
 */
export function groupRuns(sorted: readonly QueryRun[]): RunTableRow[] {
  const members = new Map<string, QueryRun[]>();
  for (const r of sorted) {
    if (!isShort(r)) continue;
    const key = groupKey(r);
    members.set(key, [...(members.get(key) ?? []), r]);
  }
  const rows: RunTableRow[] = [];
  const placed = new Set<string>();
  for (const r of sorted) {
    const key = isShort(r) ? groupKey(r) : null;
    const runs = key ? members.get(key)! : null;
    if (!key || !runs || runs.length < MIN_GROUP) {
      rows.push({ kind: "run", run: r });
      continue;
    }
    if (placed.has(key)) continue;
    placed.add(key);
    rows.push({ kind: "group", group: makeGroup(key, runs) });
  }
  return rows;
}

function makeGroup(key: string, runs: QueryRun[]): RunGroup {
  const verdicts: Partial<Record<Verdict, number>> = {};
  let totalMs = 0;
  let lastEndedAt = 0;
  for (const r of runs) {
    verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
    totalMs += (r.endedAt ?? r.lastSeen) - r.startedAt;
    lastEndedAt = Math.max(lastEndedAt, r.endedAt ?? 0);
  }
  return { key, query: runs[0].query, runs, title: `${runs.length} runs under ${SHORT_RUN_MS / 1000} s`, verdicts, totalMs, lastEndedAt };
}
