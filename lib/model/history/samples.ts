// What the history on disk keeps of a target, chosen from the window
// as it fills (issue 22). Pure: the collector hands it the window's new
// ticks, io deltas, runs and findings after each tick, and it says which
// rows to write. One tick a second (the one with the most reads in flight,
// so a second with a scan in it never keeps the idle sample), every run
// once it ends (and every 10 s while it runs, so a stop loses little), and
// each finding over the span it held.
import { FINDING_SEVERITIES, type Finding } from "../../schemas/findings";
import type { HistoryFinding, HistoryTick } from "../../schemas/history";
import type { QueryRun } from "../../schemas/runs";
import type { IoSample, Tick } from "../../schemas/tick";
import { liveReadRate } from "../window/read-rate";
import { addTick, emptyLoad } from "./second-load";

const SECOND = 1000;
/** A running run (or a holding finding) is written again this often: what a stop or a crash can lose. */
export const OPEN_REWRITE_MS = 10_000;

export interface SampleRows {
  ticks: HistoryTick[];
  runs: QueryRun[];
  findings: HistoryFinding[];
}

/** What the recorder reads of the window (TargetWindow has them). */
export interface WindowView {
  ticksSince(seq: number): readonly Tick[];
  ioSince(seq: number): readonly IoSample[];
  queries(): readonly QueryRun[];
  readonly findings: { readonly findings: readonly Finding[] };
  /** bytes a block (block_size) */
  blockSize: number;
}

const readsInFlight = (t: Tick) => (t.aio?.inFlight ?? 0) + (t.aio?.sync ?? 0);

/** The running scans' blocks covered per second x block_size, as the page's live rate; null without a scan to tell. */
function readRate(runs: readonly QueryRun[], blockSize: number): HistoryTick["rate"] {
  const rate = liveReadRate(runs, blockSize);
  return rate.scans ? rate : null;
}

export class SampleRecorder {
  private lastTickSeq = 0;
  private lastIoSeq = 0;
  private second: { at: number; tick: Tick; rate: HistoryTick["rate"]; load: NonNullable<HistoryTick["load"]> } | null = null;
  private read: NonNullable<HistoryTick["read"]> | null = null;
  /** runs written since they ended */
  private ended = new Set<string>();
  private openWrittenAt = Number.NEGATIVE_INFINITY;
  private holding = new Map<string, { finding: HistoryFinding; writtenAt: number; text: string }>();
  private lookedAt = 0;

  /**
   * The rows due after a tick at `now`: the ticks, io deltas and findings as they come (a finding
   * about a short scan may hold for less than a second), the runs once a second.
   */
  next(now: number, view: WindowView): SampleRows {
    const rows: SampleRows = { ticks: [], runs: [], findings: [] };
    this.take(view, rows);
    if (now - this.lookedAt >= SECOND) this.look(now, view, rows);
    else this.findings(now, view.findings.findings, rows.findings);
    return rows;
  }

  /** At a stop: everything not written yet, the second under way, the runs still running and the findings still holding. */
  finish(now: number, view: WindowView): SampleRows {
    const rows: SampleRows = { ticks: [], runs: [], findings: [] };
    this.take(view, rows);
    if (this.second) rows.ticks.push(this.closeSecond());
    this.openWrittenAt = Number.NEGATIVE_INFINITY;
    this.look(now, view, rows);
    for (const h of this.holding.values()) rows.findings.push({ ...h.finding, seen: now });
    return rows;
  }

  /** The new io deltas and ticks: a second's row once a tick of the next one arrives. */
  private take(view: WindowView, rows: SampleRows): void {
    for (const s of view.ioSince(this.lastIoSeq)) {
      this.lastIoSeq = s.seq;
      const r = (this.read ??= { intervalMs: 0, reads: 0, readBytes: 0, readTime: 0, hits: 0 });
      r.intervalMs += s.intervalMs;
      r.reads += s.totals.reads;
      r.readBytes += s.totals.readBytes;
      r.readTime += s.totals.readTime;
      r.hits += s.totals.hits;
    }
    for (const tick of view.ticksSince(this.lastTickSeq)) {
      this.lastTickSeq = tick.seq;
      const at = Math.floor(tick.t / SECOND);
      if (this.second && this.second.at !== at) rows.ticks.push(this.closeSecond());
      if (!this.second) this.second = { at, tick, rate: null, load: emptyLoad() };
      else if (readsInFlight(tick) >= readsInFlight(this.second.tick)) this.second.tick = tick;
      addTick(this.second.load, tick);
    }
  }

  private look(now: number, view: WindowView, rows: SampleRows): void {
    this.lookedAt = now;
    const runs = view.queries();
    if (this.second) this.second.rate = readRate(runs, view.blockSize) ?? this.second.rate;
    this.runs(now, runs, rows.runs);
    this.findings(now, view.findings.findings, rows.findings);
  }

  private closeSecond(): HistoryTick {
    const { tick, rate, load } = this.second!;
    const { seq: _seq, ...rest } = tick;
    const row: HistoryTick = { ...rest, read: this.read, rate, load };
    this.second = null;
    this.read = null;
    return row;
  }

  private runs(now: number, runs: readonly QueryRun[], out: QueryRun[]): void {
    const rewriteOpen = now - this.openWrittenAt >= OPEN_REWRITE_MS;
    if (rewriteOpen) this.openWrittenAt = now;
    const present = new Set<string>();
    for (const run of runs) {
      present.add(run.id);
      if (run.endedAt === null) {
        if (rewriteOpen) out.push(run);
      } else if (!this.ended.has(run.id)) {
        this.ended.add(run.id);
        out.push(run);
      }
    }
    // Runs the window let go of are not seen again: forget them.
    for (const id of this.ended) if (!present.has(id)) this.ended.delete(id);
  }

  private findings(now: number, findings: readonly Finding[], out: HistoryFinding[]): void {
    const present = new Set<string>();
    for (const f of findings) {
      const key = `${f.id}\u0000${f.since}`;
      present.add(key);
      const { since, ...rest } = f;
      const held = this.holding.get(key);
      const finding: HistoryFinding = { ...rest, from: since, to: null, seen: now };
      // A sentence's figures move every tick: its latest words are kept, at most every 10 s.
      if (!held || (held.text !== f.text && now - held.writtenAt >= OPEN_REWRITE_MS) || now - held.writtenAt >= 3 * OPEN_REWRITE_MS) {
        this.holding.set(key, { finding, writtenAt: now, text: f.text });
        out.push(finding);
      } else {
        held.finding = finding;
      }
    }
    for (const [key, held] of this.holding) {
      if (present.has(key)) continue;
      this.holding.delete(key);
      out.push({ ...held.finding, to: now, seen: now });
    }
  }
}

/** The worst of a span's findings: the most severe, then the longest held; null without one. */
export function worstFinding(findings: readonly HistoryFinding[]): HistoryFinding | null {
  const rank = (f: HistoryFinding) => FINDING_SEVERITIES.indexOf(f.severity);
  const held = (f: HistoryFinding) => (f.to ?? f.seen) - f.from;
  return findings.reduce<HistoryFinding | null>(
    (worst, f) => (!worst || rank(f) < rank(worst) || (rank(f) === rank(worst) && held(f) > held(worst)) ? f : worst),
    null,
  );
}
