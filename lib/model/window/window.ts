// Size: the one object every collection step feeds and every payload reads; its parts (rings, runs, settings, outages, totals) are modules of their own and this file only wires them.
// The rolling window of one target: derived ticks, pg_stat_io deltas, query runs,
// settings, restarts, checks and pg_stat_statements figures, bounded by time. Pure: no
// timers, no I/O; the collector feeds it and says what time it is, and the payload
// builders read it. Its state changes only through the methods below.
import type { FindingsPayload } from "../../schemas/findings";
import type { Capabilities } from "../../schemas/target";
import type { FindingsTarget } from "./findings";
import type { QueryRun, StatementStat } from "../../schemas/runs";
import type { Check, Reload, Restart, Settings } from "../../schemas/settings";
import type { IoSample, Tick } from "../../schemas/tick";
import type { Outage } from "../../schemas/window";
import type { SampledBackend, StatIoRow } from "../../schemas/rows";
import { computeChecks } from "./checks";
import { checksWithFindings } from "./check-findings";
import { computeFindings, stampFindings, withKnownStart } from "./findings";
import { NO_MEASURES, type MethodMeasures } from "../compare/measured";
import { WORKERS_SPAN_MS } from "./findings/thresholds";
import { deriveSample, type AioReading } from "./derive";
import { ioDelta, toCounters, type IoCounters } from "./io";
import { RelationNames } from "./relations";
import { OutageLog } from "./outages";
import { TimeRing } from "./ring";
import { RunStore } from "./runs";
import type { ProfileRead } from "./wait-profile";
import { MethodRuns } from "./method-runs";
import { ServerSettings } from "./server-settings";
import { configuredWorkers } from "./settings";
import { poolBounds, WorkerTurnover } from "./pool";
import { SampleTotals } from "./totals";

export class TargetWindow {
  private readonly tickRing: TimeRing<Tick>;
  private readonly ioRing: TimeRing<IoSample>;
  private readonly runs: RunStore;
  /** names of databases, roles and relation files (pure data; the collector's steps fill it) */
  readonly names = new RelationNames();
  private readonly sampleTotals = new SampleTotals();
  /** the io workers launched and exited, sample to sample (19's pool; /metrics counts them) */
  readonly turnover = new WorkerTurnover();
  private readonly server = new ServerSettings();
  /** the slow runs of each statement under the io_method they ran with (the findings' io_method advice) */
  private readonly methodRuns = new MethodRuns();
  private readonly outageLog = new OutageLog();
  private checkList: Check[] = [];
  private stats: { statements: StatementStat[]; note: string | null } = { statements: [], note: null };
  private findingList: FindingsPayload = { asOf: 0, findings: [], moreRuns: 0 };
  /** the history's measures per queryid under each io_method (the findings quote them) */
  private measures: MethodMeasures = NO_MEASURES;
  private seq = 0;
  private lastIo: { t: number; counters: IoCounters } | null = null;
  private asyncSeenAt = 0;
  private readsSeenAt = 0;

  constructor(readonly spanMs: number) {
    this.tickRing = new TimeRing<Tick>(spanMs);
    this.ioRing = new TimeRing<IoSample>(spanMs);
    this.runs = new RunStore((db, node) => this.names.get(db, node));
  }

  // ---- reads ---------------------------------------------------------------

  /** The newest seq given out (ticks and io share one sequence). */
  get lastSeq(): number {
    return this.seq;
  }

  lastTick(): Tick | undefined {
    return this.tickRing.last();
  }

  /** The newest tick whose pg_aios was read (or known empty); undefined before one. */
  lastAioTick(): (Tick & { aio: NonNullable<Tick["aio"]> }) | undefined {
    for (let i = this.tickRing.length - 1; i >= 0; i--) {
      const tick = this.tickRing.at(i)!;
      if (tick.aio) return tick as Tick & { aio: NonNullable<Tick["aio"]> };
    }
    return undefined;
  }

  ticksSince(seq: number): Tick[] {
    return this.tickRing.since((tick) => tick.seq > seq);
  }

  ioSince(seq: number): IoSample[] {
    return this.ioRing.since((s) => s.seq > seq);
  }

  /** Ticks with t >= from, found by binary search (no copy of the whole window). */
  ticksFrom(from: number): Tick[] {
    return this.tickRing.since((tick) => tick.t >= from);
  }

  allTicks(): Tick[] {
    return this.tickRing.toArray();
  }

  allIo(): IoSample[] {
    return this.ioRing.toArray();
  }

  /** Every sample since inflight started, for Prometheus (never evicted). */
  get totals(): Readonly<SampleTotals> {
    return this.sampleTotals;
  }

  get settings(): Readonly<Settings> {
    return this.server.now;
  }

  get restarts(): readonly Restart[] {
    return this.server.restarts;
  }

  /** The reloads seen live that changed a setting in force, oldest first (the newest 100). */
  get reloads(): readonly Reload[] {
    return this.server.reloads;
  }

  /** Restarts seen since inflight started watching (the list keeps the newest 100). */
  get restartsSeen(): number {
    return this.server.restartCount;
  }

  get outages(): readonly Outage[] {
    return this.outageLog.all;
  }

  get checks(): readonly Check[] {
    return this.checkList;
  }

  get statements(): readonly StatementStat[] {
    return this.stats.statements;
  }

  get statementsNote(): string | null {
    return this.stats.note;
  }

  /** Running first (newest first), then ended, newest first. */
  queries(): QueryRun[] {
    return this.runs.list();
  }

  run(id: string): QueryRun | undefined {
    return this.runs.get(id);
  }

  /** The latest cumulative pg_stat_io rows (for /metrics). */
  ioCounters(): StatIoRow[] {
    return this.lastIo ? [...this.lastIo.counters.values()] : [];
  }

  get serverStart(): number | null {
    return this.server.start;
  }

  /**
   * Local ms when this server start was first seen. Every sample taken since
   * is of this server; unlike serverStart it is on this machine's clock, so
   * a target's clock skew cannot move what counts as "since the restart".
   */
  get serverStartSeenAt(): number {
    return this.server.startSeenAt;
  }

  // ---- samples -------------------------------------------------------------

  /** `reading`: whether the backends carry pg_aios handles (see AioReading).
   * `extra`: a sample between the slots (a burst): kept, but not in the totals,
   * whose averages assume samples evenly spaced in time. `sampledWaits`: the
   * tick's waits from pg_wait_sampling's profile since its last read (average
   * backends in each wait), in place of this poll's. */
  addActivity(
    t: number,
    backends: SampledBackend[],
    reading: AioReading,
    extra = false,
    sampledWaits: Record<string, number> | null = null,
  ): Tick {
    const derived = deriveSample(t, backends, configuredWorkers(this.server.now), reading);
    if (sampledWaits) derived.tick.waits = sampledWaits;
    const workers = { ...derived.tick.workers, ...poolBounds(this.server.now), ...this.turnover.next(derived.workerPids, t) };
    const tick: Tick = { seq: ++this.seq, ...derived.tick, workers, ...(extra ? { extra: true as const } : {}) };
    this.tickRing.push(tick);
    if (!extra) this.sampleTotals.add(tick);
    this.methodRuns.note(this.runs.observe(t, derived.runs, derived.backends), this.server.now.io_method?.setting);
    for (const run of derived.runs) {
      for (const b of [...run.blocks.values(), ...run.syncFiles.values()]) this.names.noteSeen(b.dbOid, b.filenode, t);
    }
    // What makes a run's verdict async makes the check's: a handle in flight, or a run waiting on
    // an async read (IO:Aio*), which the wait events show on ticks whose pg_aios the budget put off.
    if ((tick.aio?.inFlight ?? 0) > 0 || tick.runs.some((r) => r.state === "aio")) this.asyncSeenAt = t;
    if ((tick.aio?.inFlight ?? 0) > 0 || (tick.aio?.sync ?? 0) > 0 || tick.waits["IO:DataFileRead"]) this.readsSeenAt = t;
    this.evict(t);
    return tick;
  }

  /** pg_wait_sampling's profile deltas into the runs they are of (run-waits.ts), and the runs the polls missed (missed-runs.ts). */
  foldWaits(read: ProfileRead, slackMs: number): void {
    const polls = this.ticksFrom(read.from - slackMs).map((tick) => tick.t);
    this.runs.foldWaits(read, slackMs, { polls, textOf: this.statementText });
  }

  private statementText = (queryId: string): string | null => this.stats.statements.find((s) => s.queryId === queryId)?.query || null;

  /** Returns the delta sample, or null for the first read or after a reset. */
  addStatIo(t: number, rows: StatIoRow[]): IoSample | null {
    const counters = toCounters(rows);
    const prev = this.lastIo;
    this.lastIo = { t, counters };
    if (!prev) return null;
    const delta = ioDelta(prev.counters, counters, t, t - prev.t);
    if (!delta) return null;
    const sample: IoSample = { seq: ++this.seq, ...delta };
    this.ioRing.push(sample);
    if (delta.totals.reads > 0) this.readsSeenAt = t;
    return sample;
  }

  /** Records settings and the postmaster start time (ServerSettings.record); a restart starts the counters and the io workers anew. */
  setServerState(
    t: number,
    settings: Settings,
    postmasterStart: number,
    known: Restart | null = null,
    confLoad: number | null = null,
  ): Restart | null {
    const restart = this.server.record(t, settings, postmasterStart, known, confLoad);
    if (restart) {
      // Counters restart from zero with the server; its io workers are new processes, not the pool growing.
      this.lastIo = null;
      this.turnover.forget();
    }
    return restart;
  }

  /** Recomputes the checks, each in the state of a current finding about its subject (check-findings.ts); true when they changed. */
  refreshChecks(t: number, capabilities: Capabilities | null): boolean {
    const seen = (at: number) => at > t - this.spanMs && at >= this.server.startSeenAt;
    const own = computeChecks({
      settings: this.server.now,
      capabilities,
      lastTick: this.tickRing.last(),
      asyncSeen: seen(this.asyncSeenAt),
      readsSeen: seen(this.readsSeenAt),
    });
    // Findings of settings since changed (a restart pending before it) wait for the next refresh of the findings.
    const checks = checksWithFindings(own, this.findingList.asOf >= this.server.changedAt ? this.findingList.findings : []);
    const changed = JSON.stringify(checks) !== JSON.stringify(this.checkList);
    this.checkList = checks;
    return changed;
  }

  get findings(): Readonly<FindingsPayload> {
    return this.findingList;
  }

  /**
   * Recomputes the findings from the window as it is now; each keeps the
   * time it first held. True when the list changed (a sentence's figures
   * moving counts as a change).
   */
  refreshFindings(t: number, target: FindingsTarget): boolean {
    const { findings, moreRuns } = computeFindings({
      now: t,
      target,
      settings: this.server.now,
      restarts: withKnownStart(this.server.restarts, this.server.knownStart),
      reloads: this.server.reloads,
      statements: this.stats.statements,
      runs: this.runs.list(),
      recent: this.ticksFrom(t - WORKERS_SPAN_MS),
      poolExitAt: this.turnover.firstExitAt,
      measured: this.measures,
      methodRuns: this.methodRuns.all,
    });
    const { next, changed } = stampFindings(this.findingList, findings, moreRuns, t);
    this.findingList = next;
    return changed;
  }

  /** The history's before/after per queryid (the server's own measurement, for the findings). */
  setMeasures = (measures: MethodMeasures) => void (this.measures = measures);

  /** pg_stat_statements over the window, and why it may be incomplete. */
  setStatements(statements: StatementStat[], note: string | null): void {
    this.stats = { statements, note };
    this.runs.nameMissed(this.statementText);
  }

  /** Ids of the runs still open: their query text is not fetched again. */
  openRunIds(): string[] {
    return this.runs.openIds();
  }

  /** Sessions whose statements the polls miss: the polls ask for their rows while they idle, to place those statements. */
  watchedPids(t: number): number[] {
    return this.runs.watchedPids(t);
  }

  // ---- outages -------------------------------------------------------------

  /** The connection was lost at `t`: open runs end, a gap starts. */
  markDown(t: number, error: string): void {
    if (!this.outageLog.down(t, error)) return;
    this.runs.closeAll(t);
    this.lastIo = null;
  }

  markUp(t: number): void {
    this.outageLog.up(t);
  }

  private evict(now: number): void {
    const cutoff = now - this.spanMs;
    this.ioRing.evictBefore(cutoff);
    this.runs.evictBefore(cutoff);
    this.methodRuns.evictBefore(cutoff);
    this.outageLog.evictBefore(cutoff);
  }
}
