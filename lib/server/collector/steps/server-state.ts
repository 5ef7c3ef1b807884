import "server-only";
import { IO_SETTINGS, toSettings } from "../../../window/settings";
import { settingsPayload } from "../../payloads/window";
import type { Session } from "../session";
import { OK, type Step, type StepContext, type StepOutcome } from "./step";

const EVERY_MS = 5000;

/**
 * Every 5 s, and before the first sample of a session: the io settings
 * (with pending_restart) and pg_postmaster_start_time(). A new start time is
 * a restart, recorded with the settings it changed; the checks follow.
 */
export class ServerStateStep implements Step {
  readonly aspect = "settings" as const;
  private lastAt = 0;
  /** checks wait for the first tick of a new session (its io workers) */
  private checksAfterTick = false;

  constructor(private readonly ctx: StepContext) {}

  due(now: number): boolean {
    return now - this.lastAt >= EVERY_MS || this.checksAfterTick;
  }

  reset(): void {
    this.checksAfterTick = true;
  }

  async run(session: Session, now: number): Promise<StepOutcome> {
    if (this.checksAfterTick && now - this.lastAt < EVERY_MS) {
      // The checks run at connect saw the last tick of the old session
      // (before a restart: its io workers): run them again with a fresh one.
      this.checksAfterTick = false;
      if (this.ctx.window.refreshChecks(now, session.capabilities)) this.publish();
      return OK;
    }
    await this.read(session, now);
    return OK;
  }

  /** Reads settings and the start time; also run at connect, before sampling. */
  async read(session: Session, now: number): Promise<void> {
    this.lastAt = now;
    const { window, log, target } = this.ctx;
    const rows = await session.run("settings", { values: [IO_SETTINGS] });
    const [server] = await session.run("server_info");
    const before = JSON.stringify(window.settings);
    const restart = window.setServerState(now, toSettings(rows), server.postmaster_start_ms);
    if (restart) {
      const changes = restart.changes.map((c) => `${c.name} ${c.before} -> ${c.after}`).join(", ") || "no io setting changed";
      log.line(`target ${target} restarted at ${new Date(restart.at).toISOString()}: ${changes}`);
    }
    const checksChanged = window.refreshChecks(now, session.capabilities);
    if (restart || checksChanged || before !== JSON.stringify(window.settings)) this.publish();
    this.ctx.health.ok("settings", now);
  }

  publishNow(): void {
    this.publish();
  }

  private publish(): void {
    this.ctx.feed.publish("settings", settingsPayload(this.ctx.window));
  }
}
