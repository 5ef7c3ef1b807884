// io_method over a range (issue 41): the same statements' ended runs under
// each io_method in force when they ran, and the labs that compared
// methods. A change is advised only where some statement ran faster under
// another method outside the spread (the two ranges of its runs apart, and
// its median at least METHOD_GAIN_SHARE shorter, and by no more time than
// its runs under the method in force waited on reads: io_method changes how
// reads are waited on, nothing else, so a statement on CPU that ran faster
// while the machine was quieter is not its doing) and nothing in the range
// (another statement, a lab) ran faster under the method in force: the
// history never contradicts the advice. Same timings: leave. A statement's
// pg_stat_statements minutes count where the range has none of its runs
// under both methods; where it has, the runs' spread judges it.
import { formatDuration } from "../../../format";
import { isHousekeepingRow, sideStats, verdict } from "../../compare/compare";
import type { QueryRun } from "../../../schemas/runs";
import { readShare } from "../verdict";
import type { SizingFigure, SizingLeverVerdict, SizingStatement } from "../../../schemas/sizing";
import { METHOD_GAIN_SHARE } from "../findings/method-evidence";
import { METHOD_RUN_MIN_MS } from "../method-runs";
import { ended, labsOf, noChange, runMs, settingsAt, statementKey, statementsOf, workload, type SizingInput } from "./input";

interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
  /** the runs' samples waiting on a read (async or synchronous), and all their samples */
  readWaits: number;
  samples: number;
}

function spreadOf(runs: readonly QueryRun[]): Spread {
  const s = runs.map(runMs).sort((a, b) => a - b);
  const mid = s.length >> 1;
  const shares = runs.map(readShare);
  return {
    median: s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2,
    min: s[0],
    max: s[s.length - 1],
    n: s.length,
    readWaits: shares.reduce((sum, r) => sum + r.waits, 0),
    samples: runs.reduce((sum, r) => sum + r.samples, 0),
  };
}

/**
 * The most of its time a side's runs can have waited on reads, from their
 * samples: the upper end of the one-sided 95% Wilson interval, so 0 of 31
 * samples reads as at most 8%, not as none.
 */
export function readShareHigh(waits: number, samples: number): number {
  if (samples <= 0) return 1;
  const z = 1.645;
  const p = waits / samples;
  const z2n = (z * z) / samples;
  return Math.min(1, (p + z2n / 2 + z * Math.sqrt((p * (1 - p)) / samples + z2n / (4 * samples))) / (1 + z2n));
}

/** `b` faster than `a` outside the spread. */
const faster = (b: Spread, a: Spread) => b.max < a.min && b.median <= a.median * (1 - METHOD_GAIN_SHARE);

/** Time `b` saved on `a` that `a`'s reads cannot account for: more than its runs can have waited on them. */
const notInReads = (b: Spread, a: Spread) => a.median - b.median > a.median * readShareHigh(a.readWaits, a.samples);

const words = (m: string, s: Spread) =>
  `under ${m}: ${formatDuration(s.median)} (${formatDuration(s.min)}-${formatDuration(s.max)}, ${s.n} runs, waiting on reads in ${s.readWaits} of ${s.samples} samples)`;

interface Side {
  statement: SizingStatement;
  runs: QueryRun[];
  byMethod: Map<string, Spread>;
}

/** Statements that ran under two io_methods or more in the range, with each side's spread. */
function sides(input: SizingInput): Side[] {
  const by = new Map<string, { runs: QueryRun[]; byMethod: Map<string, QueryRun[]> }>();
  for (const r of ended(input.runs)) {
    const method = settingsAt(input, r.endedAt!)?.io_method?.setting;
    if (!method || !workload(r) || runMs(r) < METHOD_RUN_MIN_MS) continue;
    const e = by.get(statementKey(r)) ?? { runs: [], byMethod: new Map<string, QueryRun[]>() };
    e.runs.push(r);
    e.byMethod.set(method, [...(e.byMethod.get(method) ?? []), r]);
    by.set(statementKey(r), e);
  }
  return [...by.values()]
    .filter((e) => e.byMethod.size >= 2)
    .map((e) => ({
      statement: statementsOf(e.runs)[0],
      runs: e.runs,
      byMethod: new Map([...e.byMethod].map(([m, runs]) => [m, spreadOf(runs)])),
    }));
}

/** What the labs say: for each pair of methods measured, which was faster outside the spread. */
function labSays(input: SizingInput): { faster: string; than: string }[] {
  const out: { faster: string; than: string }[] = [];
  for (const r of input.labs.filter((l) => l.lever === "io_method")) {
    for (const a of r.rows)
      for (const b of r.rows)
        if (a !== b && b.maxMs < a.minMs && b.medianMs <= a.medianMs * (1 - METHOD_GAIN_SHARE))
          out.push({ faster: b.value, than: a.value });
  }
  return out;
}

interface MinuteSays {
  method: string;
  faster: boolean;
  slower: boolean;
  statement: SizingStatement;
  figure: SizingFigure;
}

/**
 * pg_stat_statements' minutes: each statement called under `now` and under
 * another method, its means compared as the before/after view compares them
 * (lib/model/compare/compare.ts: outside the spread, and by 5% or more).
 */
function minutesSay(input: SizingInput, now: string): MinuteSays[] {
  const here = input.minutes?.byMethod.get(now);
  if (!input.minutes || !here) return [];
  const out: MinuteSays[] = [];
  for (const [method, sums] of input.minutes.byMethod) {
    if (method === now) continue;
    for (const [queryId, other] of sums) {
      const mine = here.get(queryId);
      const query = input.minutes.texts.get(queryId) ?? "";
      if (!mine || isHousekeepingRow(query)) continue;
      const a = sideStats(mine);
      const b = sideStats(other);
      const v = verdict(a, b);
      if (v.kind === "too_few") continue;
      const text = `${query.slice(0, 80)}: pg_stat_statements ${formatDuration(b.meanMs)} a call under ${method} (${b.calls} calls), ${formatDuration(a.meanMs)} under ${now} (${a.calls}): ${v.text.replace(/ \(.*\)$/, "")} under ${method}`;
      out.push({
        method,
        faster: v.kind === "faster",
        slower: v.kind === "slower",
        statement: { queryId, query, runs: b.calls, totalMs: other.execMs },
        figure: { text, value: v.change, spanMs: null },
      });
    }
  }
  return out;
}

export function ioMethodVerdict(input: SizingInput): SizingLeverVerdict {
  const now = settingsAt(input, input.to)?.io_method?.setting ?? null;
  const lab = labsOf(input.labs, "io_method");
  if (now === null) return noChange("io_method", "unknown", null, "the settings of this range are not known (io_method not read)", { lab });
  const compared = sides(input);
  const minutes = minutesSay(input, now);
  const figures: SizingFigure[] = [
    ...compared.map((s) => ({
      text: `${s.statement.query.slice(0, 80)}: ${[...s.byMethod].map(([m, sp]) => words(m, sp)).join("; ")}`,
      value: null,
      spanMs: null,
    })),
    ...minutes.map((x) => x.figure),
  ];
  const measured = labSays(input);
  // Another method m is advised when a statement ran faster under it than under `now`, and nothing ran faster under `now` than under m.
  const gains = new Map<string, Side[]>();
  // Faster under another method by more than its reads can account for: the machine's doing, not io_method's.
  const unexplained = new Map<string, Side[]>();
  const contradicted = new Set<string>(measured.filter((x) => x.faster === now).map((x) => x.than));
  for (const s of compared) {
    const here = s.byMethod.get(now);
    if (!here) continue;
    for (const [m, sp] of s.byMethod) {
      if (m === now) continue;
      if (faster(sp, here)) {
        const into = notInReads(sp, here) ? unexplained : gains;
        into.set(m, [...(into.get(m) ?? []), s]);
      }
      if (faster(here, sp)) contradicted.add(m);
    }
  }
  // A statement whose single runs the range has under both methods is judged by them: their spread
  // shows an overlap that pg_stat_statements' means hide (a few slow calls on a busy machine move a mean).
  const byRuns = new Set(compared.map((s) => s.statement.queryId).filter((id): id is string => !!id));
  for (const x of minutes) {
    if (x.statement.queryId && byRuns.has(x.statement.queryId)) continue;
    if (x.faster) gains.set(x.method, [...(gains.get(x.method) ?? []), { statement: x.statement, runs: [], byMethod: new Map() }]);
    if (x.slower) contradicted.add(x.method);
  }
  for (const x of measured) if (x.than === now && !contradicted.has(x.faster) && !gains.has(x.faster)) gains.set(x.faster, []);
  const best = [...gains].find(([m]) => !contradicted.has(m));
  if (best) {
    const [m, helped] = best;
    const reason = `${helped.length ? `${helped.length} statement${helped.length === 1 ? "" : "s"} ran faster under ${m} than under ${now} outside the spread` : `a lab here measured ${m} faster than ${now} outside the spread`}, and nothing in the range ran faster under ${now}`;
    return {
      lever: "io_method",
      verdict: "change",
      now,
      value: m,
      applies: "restart",
      headline: `set io_method = ${m} (a restart applies it)`,
      reason,
      figures,
      statements: helped.map((s) => s.statement),
      lab,
    };
  }
  const [notReads] = [...unexplained].filter(([m]) => !gains.has(m));
  const reason =
    !compared.length && !minutes.length
      ? `no statement ran under two io_methods in this range: nothing here says another would be faster${lab.length ? "" : " (the lab can measure it)"}`
      : contradicted.size
        ? `the history contradicts a change: statements ran faster under ${now}`
        : notReads
          ? `${notReads[1].length} statement${notReads[1].length === 1 ? "" : "s"} ran faster under ${notReads[0]} by more time than ${notReads[1].length === 1 ? "its" : "their"} runs under ${now} waited on reads: io_method changes only how reads are waited on, so the difference is not its doing (another load on the machine at the time?)`
          : "the same statements' runs under each io_method fall within each other's spread: no measurable difference";
  return noChange("io_method", "leave", now, reason, { figures, lab });
}
