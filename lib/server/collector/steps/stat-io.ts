import "server-only";
import type { Session } from "../session";
import { OK, type Step, type StepContext, type StepOutcome } from "./step";

const EVERY_MS = 1000;

/** Every second: pg_stat_io's cumulative counters, kept as deltas. */
export class StatIoStep implements Step {
  readonly aspect = "stat_io" as const;
  private lastAt = 0;

  constructor(private readonly ctx: StepContext) {}

  due(now: number): boolean {
    return now - this.lastAt >= EVERY_MS;
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
