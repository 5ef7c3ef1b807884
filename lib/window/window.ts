// The rolling window of one target: derived ticks, pg_stat_io deltas, query
// runs, settings and restarts, bounded by time. Pure: no timers, no I/O; the
// collector feeds it and says what time it is.
import type { Check, IoSample, QueryRun, Relation, Restart, Settings, StatementStat, Tick } from "../schemas/window";
import { deriveSample } from "./derive";
import { ioDelta, toCounters, type IoCounters } from "./io";
import type { ActivityRow, StatIoRow } from "./rows";
import { TimeRing } from "./ring";
import { RunStore, type RelationLookup } from "./runs";
import { configuredWorkers, diffSettings } from "./settings";

export interface Outage {
  from: number;
  to: number | null;
  error: string;
}

const MAX_RESTARTS = 100;
const MAX_OUTAGES = 200;

export class TargetWindow {
  readonly ticks: TimeRing<Tick>;
  readonly io: TimeRing<IoSample>;
  readonly runs: RunStore;
  settings: Settings = {};
  restarts: Restart[] = [];
  outages: Outage[] = [];
  checks: Check[] = [];
  statements: StatementStat[] = [];
  statementsNote: string | null = null;
  private seq = 0;
  private lastIo: { t: number; counters: IoCounters } | null = null;
  private postmasterStart: number | null = null;
  private postmasterStartSeenAt = 0;

  constructor(
    readonly spanMs: number,
    lookup: RelationLookup,
  ) {
    this.ticks = new TimeRing<Tick>(spanMs);
    this.io = new TimeRing<IoSample>(spanMs);
    this.runs = new RunStore(lookup);
  }

  get lastSeq(): number {
    return this.seq;
  }

  addActivity(t: number, rows: ActivityRow[]): Tick {
    const derived = deriveSample(t, rows, configuredWorkers(this.settings));
    const tick: Tick = { seq: ++this.seq, ...derived.tick };
    this.ticks.push(tick);
    this.runs.observe(t, derived.runs);
    this.evict(t);
    return tick;
  }

  /** Returns the delta sample, or null for the first read or after a reset. */
  addStatIo(t: number, rows: StatIoRow[]): IoSample | null {
    const counters = toCounters(rows);
    const prev = this.lastIo;
    this.lastIo = { t, counters };
    if (!prev) return null;
    const delta = ioDelta(prev.counters, counters, t, t - prev.t);
    if (!delta) return null;
    const sample: IoSample = { seq: ++this.seq, ...delta };
    this.io.push(sample);
    return sample;
  }

  /**
   * Records settings and the postmaster start time. A new start time is a
   * restart: it is recorded with every setting that changed across it.
   */
  setServerState(t: number, settings: Settings, postmasterStart: number): Restart | null {
    let restart: Restart | null = null;
    if (this.postmasterStart !== null && postmasterStart !== this.postmasterStart) {
      restart = { at: postmasterStart, seenAt: t, changes: diffSettings(this.settings, settings) };
      this.restarts.push(restart);
      if (this.restarts.length > MAX_RESTARTS) this.restarts.shift();
      // Counters restart from zero with the server.
      this.lastIo = null;
    }
    if (postmasterStart !== this.postmasterStart) this.postmasterStartSeenAt = t;
    this.postmasterStart = postmasterStart;
    this.settings = settings;
    return restart;
  }

  /** The latest cumulative pg_stat_io rows (for /metrics). */
  ioCounters(): StatIoRow[] {
    return this.lastIo ? [...this.lastIo.counters.values()] : [];
  }

  get serverStart(): number | null {
    return this.postmasterStart;
  }

  /**
   * Local ms when this server start was first seen. Every sample taken since
   * is of this server; unlike serverStart it is on this machine's clock, so
   * a target's clock skew cannot move what counts as "since the restart".
   */
  get serverStartSeenAt(): number {
    return this.postmasterStartSeenAt;
  }

  /** The connection was lost at `t`: open runs end, a gap starts. */
  markDown(t: number, error: string): void {
    const open = this.outages.at(-1);
    if (open && open.to === null) {
      open.error = error;
      return;
    }
    this.outages.push({ from: t, to: null, error });
    if (this.outages.length > MAX_OUTAGES) this.outages.shift();
    this.runs.closeAll(t);
    this.lastIo = null;
  }

  markUp(t: number): void {
    const open = this.outages.at(-1);
    if (open && open.to === null) open.to = t;
  }

  ticksSince(seq: number): Tick[] {
    return this.ticks.since((tick) => tick.seq > seq);
  }

  ioSince(seq: number): IoSample[] {
    return this.io.since((s) => s.seq > seq);
  }

  queries(): QueryRun[] {
    return this.runs.list();
  }

  private evict(now: number): void {
    const cutoff = now - this.spanMs;
    this.io.evictBefore(cutoff);
    this.runs.evictBefore(cutoff);
    while (this.outages.length && this.outages[0].to !== null && this.outages[0].to < cutoff) this.outages.shift();
  }
}

export type { Relation };
