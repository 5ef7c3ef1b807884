import "server-only";
import type { IoSample } from "../../../schemas/tick";
import type { Session } from "../session";
import type { Cadence, StepContext, StepOutcome } from "./step";

/** While a backend is active: rates over what completes. */
const ACTIVE_EVERY_MS = 1000;
/** While nothing is: only background writes can move the counters. */
const IDLE_EVERY_MS = 10_000;
/** At most this share of the budget, however costly the view is here. */
const BUDGET_SHARE = 0.15;

/** Counts land when a statement ends: keep the 1 s cadence this long after the last busy sample. */
const AFTER_BUSY_MS = 3000;

/** pg_stat_io's cumulative counters, kept as deltas: each second while a
 * backend is active (and just after), every 10 s otherwise (one delta then
 * spans the pause). Returns the delta for the runner to publish. */
export class StatIoStep {
  readonly aspect = "stat_io" as const;
  /** when it last read, and when the last tick showed a backend busy */
  private state = { lastAt: 0, busyAt: 0 };

  constructor(private readonly ctx: Pick<StepContext, "window">) {}

  cadence(now: number): Cadence {
    const tick = this.ctx.window.lastTick();
    if (tick !== undefined && (Object.keys(tick.waits).length > 0 || tick.workers.busy > 0)) this.state.busyAt = now;
    const busy = now - this.state.busyAt <= AFTER_BUSY_MS;
    return {
      lastAt: this.state.lastAt,
      everyMs: busy ? ACTIVE_EVERY_MS : IDLE_EVERY_MS,
      stretch: { statement: "stat_io", share: BUDGET_SHARE },
    };
  }

  /** `delta`: null for the first read or after a reset. */
  async run(session: Session, now: number): Promise<StepOutcome<{ delta: IoSample | null }>> {
    this.state.lastAt = now;
    if (!session.caps.stat_io)
      return { kind: "unavailable", why: `PostgreSQL ${session.caps.server_version} has no pg_stat_io (it came in 16)` };
    const rows = await session.run(session.caps.stat_io_bytes ? "stat_io" : "stat_io_op_bytes");
    return { kind: "read", delta: this.ctx.window.addStatIo(now, rows) };
  }
}
