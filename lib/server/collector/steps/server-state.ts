import "server-only";
import type { Settings } from "../../../schemas/settings";
import { pendingSettings, withPendingValues } from "../../../model/window/pending";
import { NAMED_SETTINGS, toSettings } from "../../../model/window/settings";
import { settingsPayload } from "../../payloads/window";
import type { ServerInfoRow } from "../../../schemas/rows";
import { isStatementError, sqlState } from "../errors";
import type { Session } from "../session";
import { OK, type Step, type StepContext, type StepOutcome } from "./step";

/** pg_postmaster_start_time() (and a ping, the round-trip baseline): cheap. */
const START_EVERY_MS = 5000;
const BUDGET_SHARE = 0.1;

/** insufficient_privilege: pg_file_settings is a superuser's unless granted */
const DENIED = "42501";

/**
 * The io settings (with pending_restart) at once after a reload, which the
 * every-tick sample shows (pg_conf_load_time() moves: SamplingStep reads them
 * before that sample's tick is made), and after a restart,
 * which pg_postmaster_start_time() shows every 5 s; every 30 s as a
 * backstop (pg_settings builds every setting's row: ~0.4 ms a read at 100
 * connections, ~1.2 ms at 1000 here). A restart is recorded with the
 * settings it changed; the checks follow. While a setting waits for a
 * restart, pg_file_settings says what the next start takes (if this role
 * may read it).
 */
export class ServerStateStep implements Step {
  readonly aspect = "settings" as const;
  private startAt = 0;
  private settingsAt = 0;
  /** the session's pg_conf_load_time() the settings in the window were read after */
  private confLoadMs: number | null = null;
  /** pg_file_settings was denied to this session's role: not asked again */
  private fileSettingsDenied = false;

  /** `sampledConfLoad`: the session's pg_conf_load_time() at the newest sample */
  constructor(
    private readonly ctx: StepContext,
    private readonly sampledConfLoad: () => number | null,
  ) {}

  due(now: number): boolean {
    return now - this.startAt >= START_EVERY_MS || this.reloaded();
  }

  reset(): void {
    this.confLoadMs = null;
    this.fileSettingsDenied = false;
  }

  /** The newest sample saw a reload the settings were not read after. */
  private reloaded(): boolean {
    const at = this.sampledConfLoad();
    return at !== null && this.confLoadMs !== null && at !== this.confLoadMs;
  }

  async run(session: Session, now: number): Promise<StepOutcome> {
    // A reload: the settings (and pending_restart) now, not at the next round.
    // (The checks follow every sample: the collector refreshes them after each tick.)
    await this.read(session, now, this.reloaded());
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
    const reloaded = server.conf_load_ms !== this.confLoadMs;
    const settingsDue = now - this.settingsAt >= budget.interval(this.ctx.cadences.settingsMs, cost.exact("settings", now), BUDGET_SHARE);
    if (!force && !restarted && !reloaded && !settingsDue) {
      if (window.refreshChecks(now, session.capabilities)) this.publish();
      return;
    }
    this.settingsAt = now;
    this.confLoadMs = server.conf_load_ms;
    const rows = await session.run("settings", { values: [NAMED_SETTINGS] });
    const before = JSON.stringify(window.settings);
    const settings = await this.pendingValues(session, toSettings(rows));
    const known = this.ctx.history.serverState(now, settings, server.postmaster_start_ms, server.server_version);
    const restart = window.setServerState(now, settings, server.postmaster_start_ms, known, server.conf_load_ms);
    if (restart) {
      const changes = restart.changes.map((c) => `${c.name} ${c.before} -> ${c.after}`).join(", ") || "no io setting changed";
      log.line(`target ${target} restarted at ${new Date(restart.at).toISOString()}: ${changes}`);
    }
    const checksChanged = window.refreshChecks(now, session.capabilities);
    if (restart || checksChanged || before !== JSON.stringify(window.settings)) this.publish();
    this.ctx.health.ok("settings", now);
  }

  /** The value each pending setting takes at the next start, where this role may read pg_file_settings (else unknown). */
  private async pendingValues(session: Session, settings: Settings): Promise<Settings> {
    const names = pendingSettings(settings).map(([name]) => name);
    if (!names.length) return settings;
    if (this.fileSettingsDenied) return withPendingValues(settings, null);
    try {
      return withPendingValues(settings, await session.run("file_settings", { values: [names] }));
    } catch (err) {
      if (!isStatementError(err)) throw err;
      if (sqlState(err) === DENIED) this.fileSettingsDenied = true;
      else this.ctx.log.once(`target ${this.ctx.target}: pg_file_settings: ${this.ctx.describe(err)}`);
      return withPendingValues(settings, null);
    }
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
    this.ctx.history.server({
      address,
      systemId: session.systemId,
      serverVersion: server.server_version,
      serverVersionNum: server.server_version_num,
      postmasterStart: server.postmaster_start_ms,
    });
  }

  publishNow(): void {
    this.publish();
  }

  private publish(): void {
    this.ctx.feed.publish("settings", settingsPayload(this.ctx.window));
  }
}
