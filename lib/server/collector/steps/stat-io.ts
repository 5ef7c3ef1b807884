import "server-only";
import type { Session } from "../session";
import { OK, type Step, type StepContext, type StepOutcome } from "./step";

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
 * spans the pause). */
export class StatIoStep implements Step {
  readonly aspect = "stat_io" as const;
  private lastAt = 0;
  private busyAt = 0;

  constructor(private readonly ctx: StepContext) {}

  due(now: number): boolean {
    const { window, budget, cost } = this.ctx;
    const tick = window.lastTick();
    if (tick !== undefined && (Object.keys(tick.waits).length > 0 || tick.workers.busy > 0)) this.busyAt = now;
    const busy = now - this.busyAt <= AFTER_BUSY_MS;
    return now - this.lastAt >= budget.interval(busy ? ACTIVE_EVERY_MS : IDLE_EVERY_MS, cost.exact("stat_io", now), BUDGET_SHARE);
  }

  async run(session: Session, now: number): Promise<StepOutcome> {
    this.lastAt = now;
    if (!session.caps.stat_io) return { unavailable: `PostgreSQL ${session.caps.server_version} has no pg_stat_io (it came in 16)` };
    const rows = await session.run(session.caps.stat_io_bytes ? "stat_io" : "stat_io_op_bytes");
    const delta = this.ctx.window.addStatIo(now, rows);
    if (delta) this.ctx.feed.publish("io", delta);
    return OK;
  }
}
