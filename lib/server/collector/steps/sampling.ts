import "server-only";
import type { AioHandle } from "../../../schemas/rows";
import { anyReading, waitingPids, type AioReading } from "../../../model/window/derive";
import { FreshRuns } from "../../../model/window/fresh-runs";
import { AIOS_FLOOR_MS, AIOS_PROBE_FIRST_MS, nextProbeMs } from "../budget";
import { isStatementError } from "../errors";
import type { Session } from "../session";
import { WaitSampler } from "../wait-sampler";
import { OK, type Step, type StepContext, type StepOutcome } from "./step";

/** Names are read again at most this often when an unknown oid appears. */
const NAMES_EVERY_MS = 10_000;
const RECENT_MS = 10_000;

/**
 * Every tick: active backends, io workers and their wait events (cheap, at
 * the fast cadence), then, when a backend is active and the budget allows,
 * the AIO handles in flight (pg_aios: its cost grows with the server's
 * size, so it is the part the budget spaces out). The one step a tick
 * cannot do without: when it fails, the tick is a miss.
 */
export class SamplingStep implements Step {
  readonly aspect = "sampling" as const;
  private namesAt = 0;
  /** the slots (not the extra samples between them) where pg_aios was read while a backend
   * was active, and those where the budget put the read off: the cadence the cost note reports */
  private aiosReads: number[] = [];
  private aiosSkips: number[] = [];
  /** when pg_aios was last read, in a slot or between them */
  private aiosReadAt = 0;
  /** pg_aios was due at its floor and put off all the same: a read does not fit beside the wait events */
  private aiosStarved = false;
  /** how long after the last read one that does not fit is tried all the same (nextProbeMs) */
  private probeMs = AIOS_PROBE_FIRST_MS;
  /** the last sample showed a run that the one before did not (a new statement started) */
  sawNewRun = false;
  /** what a burst of samples between the slots is for */
  private fresh = new FreshRuns();
  /** the next run is a sample between the slots */
  extra = false;
  /** this session's pg_conf_load_time() at the last sample (ms): it moves at a reload; null before one */
  confLoadMs: number | null = null;
  /** pg_wait_sampling's profile, where the server has it: the wait events then come from there */
  readonly waits = new WaitSampler();
  /** when the last sample was taken: how far apart a poll and a history sample may be and be one moment */
  private lastRunAt = 0;

  /**
   * `onReload`: the sample saw a reload (this session's pg_conf_load_time()
   * moved): the settings are read before the tick is made, so that a tick
   * never carries the workers alive after a reload beside io_workers before it.
   */
  constructor(
    private readonly ctx: StepContext,
    private readonly onReload: (session: Session, now: number) => Promise<unknown> = async () => undefined,
  ) {}

  /** A run that started lately is still running and not yet seen reading asynchronously twice. */
  get awaitingReads(): boolean {
    return this.fresh.awaiting;
  }

  reset(session: Session): void {
    this.waits.reset(session);
    this.lastRunAt = 0;
    this.fresh.clear();
    this.probeMs = AIOS_PROBE_FIRST_MS;
    this.namesAt = 0;
    this.confLoadMs = null;
  }

  due(): boolean {
    return true;
  }

  async run(session: Session, now: number): Promise<StepOutcome> {
    const { window, feed } = this.ctx;
    if (this.namesAt === 0) await this.readNames(session, now);
    const known = window.openRunIds();
    const all = await session.run("activity", { values: [known, known.map((id) => Number(id.slice(0, id.indexOf(":"))))] });
    // inflight's own row carries the reload time and nothing of the workload.
    const rows = [];
    const confLoadBefore = this.confLoadMs;
    for (const { conf_load_ms: confLoadMs, ...row } of all) {
      if (confLoadMs === null) rows.push(row);
      else this.confLoadMs = confLoadMs;
    }
    if (confLoadBefore !== null && this.confLoadMs !== confLoadBefore) await this.onReload(session, now);
    const { reading, handles } = await this.readAios(session, now, anyReading(rows));
    let named = window.names.nameBackends(rows, handles);
    if (named.unknown && now - this.namesAt >= NAMES_EVERY_MS) {
      await this.readNames(session, now);
      named = window.names.nameBackends(rows, handles);
    }
    this.waits.noteActive(waitingPids(rows));
    const took = this.extra ? null : await this.waits.take(session, now, this.ctx.describe);
    const tick = window.addActivity(now, named.backends, reading, this.extra, took?.waits ?? null);
    const gap = this.lastRunAt ? now - this.lastRunAt : 1000;
    this.lastRunAt = now;
    if (took) window.foldWaits(took.read, Math.min(1000, Math.max(2 * took.periodMs, gap)));
    const open = new Set(known);
    this.sawNewRun = this.fresh.observe(tick.runs, open, (id) => window.run(id));
    feed.publish("tick", tick);
    return OK;
  }

  private async readNames(session: Session, now: number): Promise<void> {
    this.namesAt = now;
    this.ctx.window.names.setNames(await session.run("names"));
  }

  private async readAios(
    session: Session,
    now: number,
    reading: boolean,
  ): Promise<{ reading: AioReading; handles: Map<number, AioHandle[]> | null }> {
    const { health, budget, cost } = this.ctx;
    if (!session.canReadAios) {
      const why = session.caps.aios
        ? `pg_aios is denied to ${session.caps.role_name}: GRANT pg_monitor TO it`
        : `PostgreSQL ${session.caps.server_version} has no pg_aios (asynchronous I/O came in 18)`;
      health.unavailable("aios", why, now);
      return { reading: "unknown", handles: null };
    }
    if (!reading) return { reading: "idle", handles: null };
    // Put off before it runs, at what it will be charged: the window is held, not repaid after.
    // At least one read every AIOS_FLOOR_MS while backends run, past the bucket, and within the
    // window where it is costly (the wait events leave it room, Budget.samplingShare); one that
    // never fits is tried all the same after 30 s, then less often (nextProbeMs), to see whether it
    // still costs that much: one slow first read must not keep it unread for minutes. The cost note
    // names both.
    const since = now - this.aiosReadAt;
    const ms = cost.latest("aios", now);
    const floor = since >= AIOS_FLOOR_MS;
    const fits = floor ? budget.affordsFloor(ms, now) : budget.affords(ms, now);
    if (!fits && since < this.probeMs) {
      if (!this.extra) this.aiosSkips.push(now);
      this.aiosStarved = floor;
      this.trim(now);
      return { reading: "unknown", handles: null };
    }
    this.aiosStarved = false;
    this.probeMs = nextProbeMs(this.probeMs, !fits);
    try {
      const rows = await session.run("aios");
      health.ok("aios", now);
      // Extra samples come tens of ms apart: counted, they would hide the slots the budget put off.
      if (!this.extra) this.aiosReads.push(now);
      this.aiosReadAt = now;
      this.trim(now);
      return { reading: "read", handles: new Map(rows.map((r) => [r.pid, r.handles])) };
    } catch (err) {
      // pg_aios failing (a timeout on a huge server) is its own aspect: the wait events still count.
      if (!isStatementError(err)) throw err;
      health.fail("aios", this.ctx.describe(err), now);
      return { reading: "unknown", handles: null };
    }
  }

  private trim(now: number): void {
    while (this.aiosReads.length && this.aiosReads[0] < now - RECENT_MS) this.aiosReads.shift();
    while (this.aiosSkips.length && this.aiosSkips[0] < now - RECENT_MS) this.aiosSkips.shift();
  }

  /** pg_aios over the last 10 s, in the slots: the median interval between reads while a backend was
   * active, reads put off, and whether it is overdue at its floor because no read fits. */
  aiosCadence(now: number): { intervalMs: number | null; skipped: number; starved: boolean; retryMs: number } {
    this.trim(now);
    // The median gap between reads: pauses with no backend active are not reads put off.
    const gaps = this.aiosReads
      .slice(1)
      .map((t, i) => t - this.aiosReads[i])
      .sort((a, b) => a - b);
    const intervalMs = gaps.length ? gaps[Math.floor(gaps.length / 2)] : null;
    return {
      intervalMs,
      skipped: this.aiosSkips.length,
      starved: this.aiosStarved && now - this.aiosReadAt >= AIOS_FLOOR_MS,
      retryMs: this.probeMs,
    };
  }
}
