// What the sizing model reads (issue 41), and the pieces every lever's rule
// shares: the settings in force at a moment, a range's seconds summed, the
// statements a set of runs belongs to, and the labs that measured a lever.
import { formatDuration } from "../../../format";
import { isPoller, type SideSums } from "../../compare/compare";
import type { LabResult } from "../../../schemas/lab";
import type { SecondLoad } from "../../../schemas/history";
import type { QueryRun } from "../../../schemas/runs";
import type { Settings } from "../../../schemas/settings";
import type { SizingLab, SizingLeverVerdict, SizingStatement } from "../../../schemas/sizing";
import type { LabLever, SizingLever } from "../../../schemas/enums";
import { isHousekeeping } from "../findings/server";

export interface SizingSecond {
  /** ms, the second's start */
  t: number;
  load: SecondLoad;
}

/** Settings as recorded at `t` (a restart, a reload, or the first read): in force until the next. */
export interface SettingsAt {
  t: number;
  settings: Settings;
}

/** pg_stat_statements' sums of the range per io_method and queryid, and the statements' texts. */
export interface MethodMinutes {
  byMethod: ReadonlyMap<string, ReadonlyMap<string, SideSums>>;
  texts: ReadonlyMap<string, string>;
}

export interface SizingInput {
  from: number;
  to: number;
  /** the range's seconds that carry a load (rows kept before issue 41 do not) */
  seconds: readonly SizingSecond[];
  /** the runs of the range; only ended ones are judged */
  runs: readonly QueryRun[];
  /** oldest first; the first is the one in force at `from` when the history has it */
  settings: readonly SettingsAt[];
  labs: readonly LabResult[];
  /** the history's per-minute statements by io_method; absent from the live window */
  minutes?: MethodMinutes;
}

/** A run needs this many samples before its figures say anything (the findings' MIN_SAMPLES). */
export { MIN_SAMPLES } from "../findings/thresholds";
/** Statements a lever names at most. */
const MAX_STATEMENTS = 5;

/** The settings in force at `t`: the newest recorded at or before it, else the oldest known. */
export function settingsAt(input: Pick<SizingInput, "settings">, t: number): Settings | null {
  let found: Settings | null = input.settings[0]?.settings ?? null;
  for (const s of input.settings) if (s.t <= t) found = s.settings;
  return found;
}

export function settingNum(settings: Settings | null, name: string): number | null {
  const v = settings?.[name]?.setting;
  if (v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

export interface LoadTotals extends SecondLoad {
  /** seconds with a sample, and with reads through the io workers */
  sampledMs: number;
  readingMs: number;
}

/** The seconds summed (peaks: the most), with how much time they cover. */
export function totals(seconds: readonly SizingSecond[]): LoadTotals {
  const t: LoadTotals = {
    samples: 0,
    reading: 0,
    waiting: 0,
    full: 0,
    atMax: 0,
    fullAtMax: 0,
    idleAtMin: 0,
    launched: 0,
    exited: 0,
    maxAlive: 0,
    maxBusy: 0,
    peakWaiting: 0,
    peakSubmitted: 0,
    sampledMs: 0,
    readingMs: 0,
  };
  for (const { load: l } of seconds) {
    for (const k of ["samples", "reading", "waiting", "full", "atMax", "fullAtMax", "idleAtMin", "launched", "exited"] as const)
      t[k] += l[k];
    for (const k of ["maxAlive", "maxBusy", "peakWaiting", "peakSubmitted"] as const) t[k] = Math.max(t[k], l[k]);
    if (l.samples > 0) t.sampledMs += 1000;
    if (l.reading > 0) t.readingMs += 1000;
  }
  return t;
}

/** The seconds that overlap a run's span. */
export function secondsOf(seconds: readonly SizingSecond[], run: QueryRun): SizingSecond[] {
  const end = run.endedAt ?? run.lastSeen;
  return seconds.filter((s) => s.t + 1000 > run.startedAt && s.t <= end);
}

/** The q-quantile (0..1) of `xs`, nearest rank; null when empty. */
export function quantile(xs: readonly number[], q: number): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export const runMs = (r: QueryRun) => Math.max(0, (r.endedAt ?? r.lastSeen) - r.startedAt);
export const ended = (runs: readonly QueryRun[]) => runs.filter((r) => r.endedAt !== null);
/** A statement of the workload: not a monitoring poll nor transaction control. */
export const workload = (r: Pick<QueryRun, "query">) => !isPoller(r.query) && !isHousekeeping(r.query);
export const statementKey = (r: Pick<QueryRun, "queryId" | "query">) => (r.queryId ? `id:${r.queryId}` : `text:${r.query}`);

/** The statements of `runs`, the most time first. */
export function statementsOf(runs: readonly QueryRun[]): SizingStatement[] {
  const by = new Map<string, SizingStatement>();
  for (const r of runs) {
    const key = statementKey(r);
    const s = by.get(key) ?? { queryId: r.queryId, query: r.query, runs: 0, totalMs: 0 };
    s.runs++;
    s.totalMs += runMs(r);
    by.set(key, s);
  }
  return [...by.values()].sort((a, b) => b.totalMs - a.totalMs).slice(0, MAX_STATEMENTS);
}

/** "measured here: io_workers 1 -> 3: 5.5 s -> 4.4 s (5.3-5.7 s, 4.2-4.7 s), 3 rounds each, 4 sessions" */
export function labText(r: LabResult): string {
  const values = r.rows.map((x) => x.value).join(" -> ");
  const medians = r.rows.map((x) => formatDuration(x.medianMs)).join(" -> ");
  const spreads = r.rows.map((x) => `${formatDuration(x.minMs)}-${formatDuration(x.maxMs)}`).join(", ");
  const sessions = r.concurrency > 1 ? `, ${r.concurrency} sessions` : "";
  return `measured here: ${r.lever} ${values}: ${medians} (${spreads}), ${r.rounds} round${r.rounds === 1 ? "" : "s"} each${sessions}`;
}

/** The labs about `lever`, newest first. */
export function labsOf(labs: readonly LabResult[], lever: LabLever): SizingLab[] {
  return labs
    .filter((r) => r.lever === lever)
    .sort((a, b) => b.at - a.at)
    .map((r) => ({ at: r.at, text: labText(r) }));
}

/** A lever's verdict with nothing to set: leave as is, or not enough evidence. */
export function noChange(
  lever: SizingLever,
  verdict: "leave" | "unknown",
  now: string | null,
  reason: string,
  rest: Partial<SizingLeverVerdict> = {},
): SizingLeverVerdict {
  const headline = verdict === "leave" ? `leave ${lever} as is${now !== null ? ` (${now})` : ""}` : `${lever}: not enough evidence`;
  return { lever, verdict, now, value: null, applies: null, headline, reason, figures: [], statements: [], lab: [], ...rest };
}

/** "12 min": a span of the range in words. */
export const span = (ms: number) => formatDuration(ms);
