// The live state of one target, kept outside React: ticks arrive at ~10 Hz,
// charts read a frame published at ~2 Hz (docs/CHARTS.md, rule 2), the
// header's figures the tick of the runs and findings shown (their moment,
// 1-2 Hz while watched). Components subscribe to one channel each with
// useSyncExternalStore.
import type { IoSample, Tick } from "@/lib/schemas/tick";
import type { FindingsPayload } from "@/lib/schemas/findings";
import { applyQueryChanges } from "@/lib/model/window/query-changes";
import type { QueriesChanges, QueriesPayload, SettingsPayload, StateEventName, StreamPayload, WindowSnapshot } from "@/lib/schemas/window";
import type { TargetInfo } from "@/lib/schemas/target";
import type { Frame, Outages } from "@/lib/view/frame";
import type { RatePoint } from "@/lib/view/throughput";
import { liveReadRate } from "@/lib/model/window/read-rate";
import { blockSizeOf } from "@/lib/model/window/settings";

export const STREAM_STATES = ["connecting", "live", "reconnecting"] as const;
export type StreamState = (typeof STREAM_STATES)[number];

export interface StreamStatus {
  state: StreamState;
  /** ms (browser clock) when the state was entered */
  since: number;
  /** why the stream is not live, or a payload that did not parse */
  error: string | null;
}

export interface Channels {
  frame: Frame;
  latest: Tick | null;
  stream: StreamStatus;
  target: TargetInfo | null;
  settings: SettingsPayload;
  queries: QueriesPayload;
  outages: Outages;
  findings: FindingsPayload;
}
export type Channel = keyof Channels;
export type ChannelValue<C extends Channel> = Channels[C];

const EMPTY_FRAME: Frame = { ticks: [], io: [], rates: [] };
/** The header follows the moments of the runs and findings (one a second at least while watched);
 * when none came for this long, it shows the newest tick rather than stand still. */
export const LATEST_STALE_MS = 2000;
/** Ticks between two evictions when no frame is flushed. */
const EVICT_EVERY = 200;

export class LiveStore {
  private ticks: Tick[] = [];
  private io: IoSample[] = [];
  private rates: RatePoint[] = [];
  private dirtyRates = false;
  private lastTickSeq = 0;
  /** the asOf of the findings and runs shown: the header shows the newest tick at or before it */
  private momentAt = -Infinity;
  private lastIoSeq = 0;
  private seq = 0;
  private received = 0;
  private dirtyTicks = false;
  private sinceEvict = 0;
  private dirtyIo = false;
  private state: Channels = {
    frame: EMPTY_FRAME,
    latest: null,
    stream: { state: "connecting", since: 0, error: null },
    target: null,
    settings: { settings: {}, checks: [], restarts: [], reloads: [] },
    queries: { asOf: 0, queries: [], statements: [], statementsNote: null },
    outages: [],
    findings: { asOf: 0, findings: [], moreRuns: 0 },
  };
  /** a queries event waiting for the findings of its moment (the server sends them right after) */
  private pendingQueries: QueriesPayload | null = null;
  private listeners: { [C in Channel]: Set<() => void> } = {
    frame: new Set(),
    latest: new Set(),
    stream: new Set(),
    target: new Set(),
    settings: new Set(),
    queries: new Set(),
    outages: new Set(),
    findings: new Set(),
  };

  /**
   * The stream's `since`: the snapshot's lastSeq, then the highest seq the
   * stream delivered (ticks and io share one counter on the server).
   */
  get lastSeq(): number {
    return this.seq;
  }

  /** Ticks the stream delivered since this store was made (snapshots not counted). */
  get ticksReceived(): number {
    return this.received;
  }

  get<C extends Channel>(channel: C): Channels[C] {
    return this.state[channel];
  }

  subscribe(channel: Channel, listener: () => void): () => void {
    this.listeners[channel].add(listener);
    return () => this.listeners[channel].delete(listener);
  }

  private set<C extends Channel>(channel: C, value: Channels[C]): void {
    this.state[channel] = value;
    for (const l of this.listeners[channel]) l();
  }

  /** Replaces everything with a snapshot (first load, or after a reset). */
  load(snapshot: WindowSnapshot): void {
    this.ticks = [...snapshot.ticks].sort((a, b) => a.seq - b.seq);
    this.io = [...snapshot.io].sort((a, b) => a.seq - b.seq);
    this.lastTickSeq = this.ticks.at(-1)?.seq ?? 0;
    this.lastIoSeq = this.io.at(-1)?.seq ?? 0;
    this.seq = snapshot.lastSeq;
    this.set("target", snapshot.target);
    this.set("settings", { settings: snapshot.settings, checks: snapshot.checks, restarts: snapshot.restarts, reloads: snapshot.reloads });
    this.pendingQueries = null;
    this.set("queries", {
      asOf: snapshot.asOf,
      queries: snapshot.queries,
      statements: snapshot.statements,
      statementsNote: snapshot.statementsNote,
    });
    this.set("outages", snapshot.outages);
    this.set("findings", { asOf: snapshot.asOf, findings: snapshot.findings, moreRuns: snapshot.moreRuns });
    // The snapshot's ticks run past its moment (ticks go out before the moment that follows them).
    this.momentAt = snapshot.asOf;
    this.set("latest", this.tickAt(snapshot.asOf) ?? this.ticks.at(-1) ?? null);
    this.rates = [];
    this.noteRate();
    this.dirtyTicks = this.dirtyIo = this.dirtyRates = true;
    this.flush();
  }

  /** A tick from the stream; replays and duplicates (seq <= the last seen) are dropped. */
  addTick(tick: Tick): boolean {
    if (tick.seq <= this.lastTickSeq) return false;
    this.lastTickSeq = tick.seq;
    this.seq = Math.max(this.seq, tick.seq);
    this.received++;
    this.ticks.push(tick);
    this.dirtyTicks = true;
    // Frames may not be flushed for a while (a hidden tab): stay bounded anyway.
    if (++this.sinceEvict >= EVICT_EVERY) this.evict();
    // The moment's own tick may come after the moment; the newest when no moment came for a while.
    const shown = this.state.latest;
    if (!shown || tick.t - shown.t > LATEST_STALE_MS || (tick.t <= this.momentAt && tick.t > shown.t)) this.set("latest", tick);
    return true;
  }

  addIo(sample: IoSample): boolean {
    if (sample.seq <= this.lastIoSeq) return false;
    this.lastIoSeq = sample.seq;
    this.seq = Math.max(this.seq, sample.seq);
    this.io.push(sample);
    this.dirtyIo = true;
    return true;
  }

  apply<E extends StateEventName>(event: E, payload: StreamPayload<E>): void {
    if (event === "target") this.set("target", payload as TargetInfo);
    else if (event === "settings") this.set("settings", payload as SettingsPayload);
    else if (event === "queries") {
      // Shown with the findings of its moment, which follow it: a finding and
      // the row it quotes never stand on the page from two moments.
      this.commitQueries();
      this.pendingQueries = payload as QueriesPayload;
    } else if (event === "findings") {
      this.commitQueries();
      const findings = payload as FindingsPayload;
      this.set("findings", findings);
      this.showTickOf(findings.asOf);
    } else {
      // Sent with every queries event: keep the reference when nothing changed,
      // so charts that depend on it do not redraw for nothing.
      const outages = (payload as StreamPayload<"outages">).outages;
      if (!sameOutages(outages, this.state.outages)) this.set("outages", outages);
    }
  }

  /**
   * Changes to the queries state, from the stream: applied to the state they
   * were made against (waiting for its findings, or shown), and shown with
   * the findings of their moment. False when they are of another state (the
   * stream reconnects with the whole state).
   */
  applyQueriesChanges(changes: QueriesChanges): boolean {
    const next = applyQueryChanges(this.pendingQueries ?? this.state.queries, changes);
    if (!next) return false;
    this.commitQueries();
    this.pendingQueries = next;
    return true;
  }

  private commitQueries(): void {
    const q = this.pendingQueries;
    if (!q) return;
    this.pendingQueries = null;
    this.set("queries", q);
    this.noteRate();
  }

  /** The header's tick: the newest at or before the moment of the findings and runs just shown,
   * so that "0 active backends" never stands above "Slowest running". */
  private showTickOf(asOf: number): void {
    this.momentAt = asOf;
    const tick = this.tickAt(asOf);
    if (tick && tick !== this.state.latest) this.set("latest", tick);
  }

  /** The newest tick at or before `t`. */
  private tickAt(t: number): Tick | undefined {
    let i = this.ticks.length - 1;
    while (i >= 0 && this.ticks[i].t > t) i--;
    return this.ticks[i];
  }

  /** The live read estimate now, at the newest tick's (server) time. */
  private noteRate(): void {
    const t = this.ticks.at(-1)?.t;
    if (t === undefined || (this.rates.length && this.rates[this.rates.length - 1].t >= t)) return;
    this.rates.push({ t, ...liveReadRate(this.state.queries.queries, blockSizeOf(this.state.settings.settings)) });
    this.dirtyRates = true;
  }

  setStream(state: StreamState, now: number, error: string | null = null): void {
    const cur = this.state.stream;
    if (cur.state === state && cur.error === error) return;
    this.set("stream", { state, since: cur.state === state ? cur.since : now, error });
  }

  /**
   * The data as it is now, published as a frame or not, without publishing
   * it: arrays this store never changes again (a frozen view keeps them).
   */
  currentFrame(): Frame {
    const prev = this.state.frame;
    return {
      ticks: this.dirtyTicks ? this.ticks.slice() : prev.ticks,
      io: this.dirtyIo ? this.io.slice() : prev.io,
      rates: this.dirtyRates ? this.rates.slice() : prev.rates,
    };
  }

  /**
   * Drops what fell out of the window and publishes a new frame if anything
   * changed: called on a timer at the chart rate, not per tick.
   */
  flush(): boolean {
    this.evict();
    if (!this.dirtyTicks && !this.dirtyIo && !this.dirtyRates) return false;
    this.set("frame", this.currentFrame());
    this.dirtyTicks = this.dirtyIo = this.dirtyRates = false;
    return true;
  }

  /** Drops ticks and io samples older than the window before the newest one. */
  private evict(): void {
    this.sinceEvict = 0;
    const windowMs = this.state.target?.windowMs;
    const newest = Math.max(this.ticks.at(-1)?.t ?? -Infinity, this.io.at(-1)?.t ?? -Infinity);
    if (windowMs && Number.isFinite(newest)) {
      const cutoff = newest - windowMs;
      const dropTicks = countBefore(this.ticks, cutoff);
      if (dropTicks) {
        this.ticks.splice(0, dropTicks);
        this.dirtyTicks = true;
      }
      const dropIo = countBefore(this.io, cutoff);
      if (dropIo) {
        this.io.splice(0, dropIo);
        this.dirtyIo = true;
      }
      const dropRates = countBefore(this.rates, cutoff);
      if (dropRates) {
        this.rates.splice(0, dropRates);
        this.dirtyRates = true;
      }
    }
  }
}

function sameOutages(a: Outages, b: Outages): boolean {
  return a.length === b.length && a.every((o, i) => o.from === b[i].from && o.to === b[i].to && o.error === b[i].error);
}

function countBefore(items: readonly { t: number }[], cutoff: number): number {
  let n = 0;
  while (n < items.length && items[n].t < cutoff) n++;
  return n;
}
