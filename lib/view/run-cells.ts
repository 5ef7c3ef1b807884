// One query run's cells in the runs table, each figure named for what it
// is: the read-wait share (sampled), reads in flight (of the samples that
// read pg_aios), the statement's exact share (pg_stat_statements), and
// where a scan has got to.
import type { QueryRun, StatementStat } from "@/lib/schemas/runs";
import type { RunSample } from "@/lib/schemas/tick";
import { formatDuration, formatShare } from "@/lib/format";
import { pct as sharePct, runFigures, timeLeftText } from "@/lib/model/window/findings/figures";
import { MIN_SAMPLES, READS_MIN_SAMPLES } from "@/lib/model/window/findings/thresholds";
import { readShare } from "@/lib/model/window/verdict";

export interface ReadWaitCell {
  /** "42%", or "too few samples" under MIN_SAMPLES samples */
  main: string;
  /** "waiting on reads in 57 of 136 samples" */
  detail: string;
  /** "async 50, synchronous 7"; empty without read waits */
  split: string;
  title: string;
}

export function readWaitCell(run: QueryRun): ReadWaitCell {
  // The run's one read share, as its finding and its verdict say it (lib/model/window/verdict.ts).
  const share = readShare(run);
  const other = run.otherIoWaitSamples ? `; other IO waits (not reads) in ${run.otherIoWaitSamples}, not counted` : "";
  return {
    main: run.samples < MIN_SAMPLES ? "too few samples" : share.percent,
    detail: share.text,
    split: share.split,
    title: `read wait: samples waiting on a read (IO:AioIoCompletion ${run.aioWaitSamples}, IO:DataFileRead ${run.readWaitSamples}) / samples (${run.samples})${other}. Sampled, an estimate${run.samples < MIN_SAMPLES ? `; under ${MIN_SAMPLES} samples, too few to tell (a run seen only briefly, however long it ran)` : ""}.`,
  };
}

/** Sampled and exact read shares further apart than this say why. */
export const SHARES_DIFFER_BY = 0.1;

export interface StatementShareCell {
  /** "pg_stat_statements: 22% of execution time in reads (3 calls)" */
  text: string;
  /** when the sampled share beside it differs by more than SHARES_DIFFER_BY: "sampled 67% vs 22%: few samples, other calls"; else null */
  differs: string | null;
  /** the same, each reason said in full (the cell's title) */
  differsWhy: string | null;
}

/**
 * The statement's exact read share over the window (pg_stat_statements,
 * all its calls), named as that; null when the run has no entry. When the
 * run's sampled share differs from it by more than a few points, why.
 */
export function statementShare(run: QueryRun, statements: readonly StatementStat[]): StatementShareCell | null {
  if (!run.queryId) return null;
  const s = statements.find((x) => x.queryId === run.queryId);
  if (!s || s.readTime === null || s.totalExecTime <= 0) return null;
  const share = s.readTime / s.totalExecTime;
  const calls = `${s.calls} call${s.calls === 1 ? "" : "s"}`;
  if (share > 1)
    return {
      text: `pg_stat_statements: read time above execution time (summed over its processes; ${calls})`,
      differs: null,
      differsWhy: null,
    };
  const text = `pg_stat_statements: ${formatShare(share)} of execution time in reads (${calls})`;
  if (run.samples < MIN_SAMPLES) return { text, differs: null, differsWhy: null };
  const sampled = runFigures(run, run.lastSeen).readWait;
  if (Math.abs(sampled - share) <= SHARES_DIFFER_BY) return { text, differs: null, differsWhy: null };
  const reasons = differenceReasons(run, s, sampled > share);
  const head = `sampled ${formatShare(sampled)} vs ${formatShare(share)}`;
  return {
    text,
    differs: `${head}: ${reasons.map((r) => r[0]).join(", ")}`,
    differsWhy: `${head}: ${reasons.map((r) => r[1]).join("; ")}`,
  };
}

/** Why a run's sampled read wait and its statement's exact share disagree, most likely first: [short, in full]. */
function differenceReasons(run: QueryRun, s: StatementStat, sampledHigher: boolean): [string, string][] {
  const reasons: [string, string][] = [];
  if (run.samples < READS_MIN_SAMPLES) reasons.push(["few samples", `few samples (${run.samples})`]);
  if (run.endedAt === null) reasons.push(["not counted yet", "pg_stat_statements counts a call when it ends: this run is not in it yet"]);
  else if (s.calls > 1) reasons.push(["other calls", `pg_stat_statements covers all ${s.calls} calls in the window, this row one run`]);
  if (sampledHigher)
    reasons.push([
      "sampler over-counts",
      "a sampler that shares the cores with the scan runs when the scan is blocked, so it over-counts waits",
    ]);
  return reasons.length ? reasons : [["an estimate", "the sampled share is an estimate"]];
}

export interface InFlightCell {
  /** the figure: reads in flight now (running), else the peak */
  main: string;
  /** what it is: "now · peak 4", "peak in flight (12 pg_aios reads)", "not read this sample" */
  label: string;
  /** the figure is not known (pg_aios not read) */
  unknown: boolean;
}

/**
 * `now`: the run's sample in the newest tick (undefined when the run is not
 * in it). Its inFlight is null when that sample did not read pg_aios.
 */
export function inFlightCell(run: QueryRun, now: RunSample | undefined): InFlightCell {
  if (run.endedAt !== null) {
    if (run.aioReadSamples === 0) return { main: "–", label: "pg_aios not read in its samples", unknown: true };
    const reads = `${run.aioReadSamples} pg_aios read${run.aioReadSamples === 1 ? "" : "s"}`;
    return run.maxInFlight > 0
      ? { main: String(run.maxInFlight), label: `peak in flight (${reads})`, unknown: false }
      : { main: "0", label: `none seen in flight (${reads})`, unknown: false };
  }
  if (now && now.inFlight === null)
    return { main: "–", label: `not read this sample (last ${run.inFlightNow}, peak ${run.maxInFlight})`, unknown: true };
  const value = now?.inFlight ?? run.inFlightNow;
  return { main: String(value), label: `now · peak ${run.maxInFlight}`, unknown: false };
}

export type ProgressCell =
  | { kind: "none"; text: string }
  | { kind: "finished"; text: string }
  | { kind: "bar"; pct: number; text: string; eta: string | null; title: string };

/** A running scan's bar and time left; an ended scan says it finished, never its last share as a bar. */
export function progressCell(run: QueryRun, blockSize: number): ProgressCell {
  const rel = run.progressRelation ?? "the relation";
  if (run.endedAt !== null) {
    if (run.progress === null) return { kind: "none", text: "–" };
    return { kind: "finished", text: `finished (${formatDuration(run.endedAt - run.startedAt)}), scanned ${rel}` };
  }
  if (run.progress === null) return { kind: "none", text: "–" };
  const pct = Math.round(Math.min(1, Math.max(0, run.progress)) * 100);
  const eta = timeLeftText(run, blockSize);
  return {
    kind: "bar",
    pct,
    // The finding's own words and rounding: one figure where both show it.
    text: `${sharePct(run.progress)} of ${rel} scanned`,
    eta,
    title: `share of ${rel} covered since the first block seen in flight (from pg_aios block positions; a synchronized scan may start mid-table and wrap around)`,
  };
}
