import "server-only";
import type { Session } from "../session";
import { OK, type Step, type StepContext, type StepOutcome } from "./step";

/**
 * Every tick: active backends, io workers and their wait events, with the
 * AIO handles in flight per issuing pid where pg_aios can be read. The one
 * step a tick cannot do without: when it fails, the tick is a miss.
 */
export class SamplingStep implements Step {
  readonly aspect = "sampling" as const;

  constructor(private readonly ctx: StepContext) {}

  due(): boolean {
    return true;
  }

  async run(session: Session, now: number): Promise<StepOutcome> {
    const { window, feed, health, stats } = this.ctx;
    const aios = session.canReadAios;
    const rows = await session.run(aios ? "activity_aios" : "activity");
    const tick = window.addActivity(now, rows, aios);
    stats.sampled(now);
    feed.publish("tick", tick);
    if (aios) health.ok("aios", now);
    else health.unavailable("aios", session.caps.aios ? `pg_aios is denied to ${session.caps.role_name}: GRANT pg_monitor TO it` : `PostgreSQL ${session.caps.server_version} has no pg_aios (asynchronous I/O came in 18)`, now);
    return OK;
  }
}
