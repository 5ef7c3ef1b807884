import "server-only";
import type { AioHandle, ActivityRow } from "../../../schemas/rows";
import type { Tick } from "../../../schemas/tick";
import { anyReading, waitingPids, type AioReading } from "../../../model/window/derive";
import { FreshRuns } from "../../../model/window/fresh-runs";
import { AIOS_FLOOR_MS, AIOS_PROBE_FIRST_MS } from "../budget";
import { isStatementError } from "../errors";
import type { AspectOutcome } from "../health";
import type { AiosAdmission } from "../pace";
import type { Session } from "../session";
import { WaitSampler } from "../wait-sampler";
import type { StepContext } from "./step";

/** Names are read again at most this often when an unknown oid appears. */
const NAMES_EVERY_MS = 10_000;
const RECENT_MS = 10_000;

/** A sample in a slot of the schedule, or an extra one between the slots (a burst). */
export type SampleKind = "slot" | "extra";

/** pg_aios in a sample, as the poll found it: not readable here (and why), no backend reading, or
 * wanted, `sinceMs` after the last read (the runner asks the budget: Pace.aios). */
export type AiosWant = { kind: "unavailable"; why: string } | { kind: "idle" } | { kind: "wanted"; sinceMs: number; probeMs: number };

/** What a sample does about pg_aios: the poll's answer, or the budget's for a read the poll wanted. */
export type AiosPlan = Exclude<AiosWant, { kind: "wanted" }> | AiosAdmission;

/** The first half of a sample: the backends, whether the session's pg_conf_load_time() moved since
 * the sample before (a reload), and what pg_aios would take. */
export interface Polled {
  rows: Omit<ActivityRow, "conf_load_ms">[];
  /** the runs open before this sample */
  known: string[];
  reloaded: boolean;
  aios: AiosWant;
}

/** pg_aios's own aspect after a sample: read, not offered here, or failed (the sample went on
 * without it); null when it was not asked (nothing reading, or put off by the budget). */
export type AiosOutcome = AspectOutcome | null;

/** A sample: its tick (for the runner to publish), whether it showed a run the sample before
 * did not (a statement started), and pg_aios's outcome. */
export type Sampled = { kind: "read"; tick: Tick; newRun: boolean; aios: AiosOutcome };

/** What a session's samples keep; a new session starts again (reset). */
interface SessionState {
  /** when the names were last read (0: not yet in this session) */
  namesAt: number;
  /** this session's pg_conf_load_time() at the last sample (ms): it moves at a reload; null before one */
  confLoadMs: number | null;
  /** when the last sample was taken: how far apart a poll and a history sample may be and be one moment */
  lastRunAt: number;
  /** how long after the last pg_aios read one that does not fit is tried all the same (nextProbeMs) */
  probeMs: number;
  /** what a burst of samples between the slots is for */
  fresh: FreshRuns;
}

/** pg_aios's cadence over the last 10 s, kept over the sessions: what the cost note reports. */
interface AiosLog {
  /** the slots (not the extra samples between them) where it was read while a backend was active,
   * and those where the budget put the read off */
  reads: number[];
  skips: number[];
  /** when it was last read, in a slot or between them */
  readAt: number;
  /** it was due at its floor and put off all the same: a read does not fit beside the wait events */
  starved: boolean;
}

const newSession = (): SessionState => ({
  namesAt: 0,
  confLoadMs: null,
  lastRunAt: 0,
  probeMs: AIOS_PROBE_FIRST_MS,
  fresh: new FreshRuns(),
});

/**
 * Every tick: active backends, io workers and their wait events (cheap, at
 * the fast cadence), then, when a backend is active and the budget allows,
 * the AIO handles in flight (pg_aios: its cost grows with the server's
 * size, so it is the part the budget spaces out). The one step a tick
 * cannot do without: when it fails, the tick is a miss. In two halves, poll
 * and sample: between them the runner reads the settings after a reload
 * and asks the budget for pg_aios.
 */
export class SamplingStep {
  readonly aspect = "sampling" as const;
  /** pg_wait_sampling's profile, where the server has it: the wait events then come from there */
  readonly waits: WaitSampler;
  private state = newSession();
  private aios: AiosLog = { reads: [], skips: [], readAt: 0, starved: false };

  constructor(private readonly ctx: Pick<StepContext, "window" | "describe" | "cost" | "cadences">) {
    this.waits = new WaitSampler(ctx.cost, ctx.cadences.profileRetryMs);
  }

  /** This session's pg_conf_load_time() at the last sample; null before one. */
  get confLoadMs(): number | null {
    return this.state.confLoadMs;
  }

  /** A run that started lately is still running and not yet seen reading asynchronously twice. */
  get awaitingReads(): boolean {
    return this.state.fresh.awaiting;
  }

  reset(session: Session): void {
    this.waits.reset(session);
    this.state = newSession();
  }

  async poll(session: Session, now: number): Promise<Polled> {
    if (this.state.namesAt === 0) await this.readNames(session, now);
    const known = this.ctx.window.openRunIds();
    // The backends of the open runs, and the sessions whose statements the polls miss, are returned idle too.
    const pids = new Set([...known.map((id) => Number(id.slice(0, id.indexOf(":")))), ...this.ctx.window.watchedPids(now)]);
    const all = await session.run("activity", { values: [known, [...pids]] });
    // inflight's own row carries the reload time and nothing of the workload.
    const rows = [];
    const confLoadBefore = this.state.confLoadMs;
    for (const { conf_load_ms: confLoadMs, ...row } of all) {
      if (confLoadMs === null) rows.push(row);
      else this.state.confLoadMs = confLoadMs;
    }
    const reloaded = confLoadBefore !== null && this.state.confLoadMs !== confLoadBefore;
    return { rows, known, reloaded, aios: this.aiosWant(session, now, anyReading(rows)) };
  }

  /** The second half: pg_aios as `aios` says, the backends named, the wait events, and the tick. */
  async sample(session: Session, now: number, polled: Polled, aios: AiosPlan, kind: SampleKind): Promise<Sampled> {
    const { window } = this.ctx;
    const slot = kind === "slot";
    const read = await this.readAios(session, now, aios, slot);
    let named = window.names.nameBackends(polled.rows, read.handles);
    if (named.unknown && now - this.state.namesAt >= NAMES_EVERY_MS) {
      await this.readNames(session, now);
      named = window.names.nameBackends(polled.rows, read.handles);
    }
    this.waits.noteActive(waitingPids(polled.rows));
    const took = slot ? await this.waits.take(session, now, this.ctx.describe) : null;
    const tick = window.addActivity(now, named.backends, read.reading, !slot, took?.waits ?? null);
    const gap = this.state.lastRunAt ? now - this.state.lastRunAt : 1000;
    this.state.lastRunAt = now;
    if (took) window.foldWaits(took.read, Math.min(1000, Math.max(2 * took.periodMs, gap)));
    const newRun = this.state.fresh.observe(tick.runs, new Set(polled.known), (id) => window.run(id));
    return { kind: "read", tick, newRun, aios: read.outcome };
  }

  private async readNames(session: Session, now: number): Promise<void> {
    this.state.namesAt = now;
    this.ctx.window.names.setNames(await session.run("names"));
  }

  private aiosWant(session: Session, now: number, reading: boolean): AiosWant {
    if (!session.canReadAios) {
      const why = session.caps.aios
        ? `pg_aios is denied to ${session.caps.role_name}: GRANT pg_monitor TO it`
        : `PostgreSQL ${session.caps.server_version} has no pg_aios (asynchronous I/O came in 18)`;
      return { kind: "unavailable", why };
    }
    if (!reading) return { kind: "idle" };
    return { kind: "wanted", sinceMs: now - this.aios.readAt, probeMs: this.state.probeMs };
  }

  private async readAios(
    session: Session,
    now: number,
    plan: AiosPlan,
    slot: boolean,
  ): Promise<{ reading: AioReading; handles: Map<number, AioHandle[]> | null; outcome: AiosOutcome }> {
    const log = this.aios;
    if (plan.kind === "unavailable") return { reading: "unknown", handles: null, outcome: plan };
    if (plan.kind === "idle") return { reading: "idle", handles: null, outcome: null };
    if (plan.kind === "put-off") {
      if (slot) log.skips.push(now);
      log.starved = plan.starved;
      this.trim(now);
      return { reading: "unknown", handles: null, outcome: null };
    }
    log.starved = false;
    this.state.probeMs = plan.probeMs;
    try {
      const rows = await session.run("aios");
      // Extra samples come tens of ms apart: counted, they would hide the slots the budget put off.
      if (slot) log.reads.push(now);
      log.readAt = now;
      this.trim(now);
      return { reading: "read", handles: new Map(rows.map((r) => [r.pid, r.handles])), outcome: { kind: "read" } };
    } catch (err) {
      // pg_aios failing (a timeout on a huge server) is its own aspect: the wait events still count.
      if (!isStatementError(err)) throw err;
      return { reading: "unknown", handles: null, outcome: { kind: "failed", error: this.ctx.describe(err) } };
    }
  }

  private trim(now: number): void {
    const log = this.aios;
    while (log.reads.length && log.reads[0] < now - RECENT_MS) log.reads.shift();
    while (log.skips.length && log.skips[0] < now - RECENT_MS) log.skips.shift();
  }

  /** pg_aios over the last 10 s, in the slots: the median interval between reads while a backend was
   * active, reads put off, and whether it is overdue at its floor because no read fits. */
  aiosCadence(now: number): { intervalMs: number | null; skipped: number; starved: boolean; retryMs: number } {
    this.trim(now);
    const { reads } = this.aios;
    // The median gap between reads: pauses with no backend active are not reads put off.
    const gaps = reads
      .slice(1)
      .map((t, i) => t - reads[i])
      .sort((a, b) => a - b);
    const intervalMs = gaps.length ? gaps[Math.floor(gaps.length / 2)] : null;
    return {
      intervalMs,
      skipped: this.aios.skips.length,
      starved: this.aios.starved && now - this.aios.readAt >= AIOS_FLOOR_MS,
      retryMs: this.state.probeMs,
    };
  }
}
