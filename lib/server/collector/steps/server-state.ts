import "server-only";
import { IO_SETTINGS, toSettings } from "../../../window/settings";
import { settingsPayload } from "../../payloads/window";
import type { ServerInfoRow } from "../../../schemas/rows";
import { isStatementError } from "../errors";
import type { Session } from "../session";
import { OK, type Step, type StepContext, type StepOutcome } from "./step";

/** pg_postmaster_start_time() (and a ping, the round-trip baseline): cheap. */
const START_EVERY_MS = 5000;
const BUDGET_SHARE = 0.1;

/**
 * The io settings (with pending_restart) every 30 s (pg_settings builds every
 * setting's row: ~0.4 ms a read at 100 connections, ~1.2 ms at 1000 here),
 * and at once after a
 * restart, which pg_postmaster_start_time() shows every 5 s: a restart is
 * recorded with the settings it changed; the checks follow.
 */
export class ServerStateStep implements Step {
  readonly aspect = "settings" as const;
  private startAt = 0;
  private settingsAt = 0;
  /** checks wait for the first tick of a new session (its io workers) */
  private checksAfterTick = false;

  constructor(private readonly ctx: StepContext) {}

  due(now: number): boolean {
    return now - this.startAt >= START_EVERY_MS || this.checksAfterTick;
  }

  reset(): void {
    this.checksAfterTick = true;
  }

  async run(session: Session, now: number): Promise<StepOutcome> {
    if (this.checksAfterTick && now - this.startAt < START_EVERY_MS) {
      // The checks run at connect saw the last tick of the old session
      // (before a restart: its io workers): run them again with a fresh one.
      this.checksAfterTick = false;
      if (this.ctx.window.refreshChecks(now, session.capabilities)) this.publish();
      return OK;
    }
    await this.read(session, now, false);
    return OK;
  }

  /** Reads the start time, and the settings when due or `force`d (at connect, before sampling). */
  async read(session: Session, now: number, force = true): Promise<void> {
    const { window, log, target, cost, budget } = this.ctx;
    this.startAt = now;
    await session.run("ping", { timed: (ms) => cost.ping(ms) });
    const [server] = await session.run("server_info");
    if (force) await this.identify(session, server);
    const restarted = window.serverStart !== null && window.serverStart !== server.postmaster_start_ms;
    const settingsDue = now - this.settingsAt >= budget.interval(this.ctx.cadences.settingsMs, cost.exact("settings", now), BUDGET_SHARE);
    if (!force && !restarted && !settingsDue) {
      if (window.refreshChecks(now, session.capabilities)) this.publish();
      return;
    }
    this.settingsAt = now;
    const rows = await session.run("settings", { values: [IO_SETTINGS] });
    const before = JSON.stringify(window.settings);
    const settings = toSettings(rows);
    const restart = window.setServerState(now, settings, server.postmaster_start_ms);
    this.ctx.history.serverState(now, settings, server.postmaster_start_ms, server.server_version);
    if (restart) {
      const changes = restart.changes.map((c) => `${c.name} ${c.before} -> ${c.after}`).join(", ") || "no io setting changed";
      log.line(`target ${target} restarted at ${new Date(restart.at).toISOString()}: ${changes}`);
    }
    const checksChanged = window.refreshChecks(now, session.capabilities);
    if (restart || checksChanged || before !== JSON.stringify(window.settings)) this.publish();
    this.ctx.health.ok("settings", now);
  }

  /**
   * On connect: which server this is, for the history (its address and, where
   * the role may read it, its system identifier). A refusal is not the
   * session's failure: the history then goes by the address.
   */
  private async identify(session: Session, server: ServerInfoRow): Promise<void> {
    const address = this.ctx.address();
    if (!address) return;
    session.systemId = null;
    if (session.caps.control_system_allowed) {
      try {
        const [row] = await session.run("system_identifier");
        session.systemId = row?.system_identifier ?? null;
      } catch (err) {
        if (!isStatementError(err)) throw err;
      }
    }
    this.ctx.history.server({ address, systemId: session.systemId, serverVersion: server.server_version, serverVersionNum: server.server_version_num, postmasterStart: server.postmaster_start_ms });
  }

  publishNow(): void {
    this.publish();
  }

  private publish(): void {
    this.ctx.feed.publish("settings", settingsPayload(this.ctx.window));
  }
}
