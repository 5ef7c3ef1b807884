import "server-only";
import type { Settings } from "../../../schemas/settings";
import { pendingSettings, withPendingValues } from "../../../model/window/pending";
import { NAMED_SETTINGS, toSettings } from "../../../model/window/settings";
import type { ServerInfoRow } from "../../../schemas/rows";
import { isStatementError, sqlState } from "../errors";
import type { Session } from "../session";
import type { Cadence, StepContext } from "./step";

/** pg_postmaster_start_time() (and a ping, the round-trip baseline): cheap. */
const START_EVERY_MS = 5000;
const BUDGET_SHARE = 0.1;

/** insufficient_privilege: pg_file_settings is a superuser's unless granted */
const DENIED = "42501";

/** Why the server state is read: at connect (which server this is, and its settings whatever), or a
 * check, with the session's pg_conf_load_time() at the newest sample (a reload the settings were not
 * read after reads them) and whether their own cadence came round (stretched by the budget: Pace.due). */
export type ServerStateAsk = { kind: "connect" } | { kind: "check"; sampledConfLoadMs: number | null; settingsDue: boolean };

/** What a read did: read the settings too or not, and whether what the settings payload shows
 * changed (the settings, a restart, the checks): the runner publishes it then. */
export type ServerStateRead = { kind: "read"; settingsRead: boolean; changed: boolean };

/** What the step keeps: when it last read (over the sessions), and what a new session forgets. */
interface ServerStateState {
  startAt: number;
  settingsAt: number;
  /** the session's pg_conf_load_time() the settings in the window were read after */
  confLoadMs: number | null;
  /** pg_file_settings was denied to this session's role: not asked again */
  fileSettingsDenied: boolean;
}

/**
 * The io settings (with pending_restart) at once after a reload, which the
 * every-tick sample shows (pg_conf_load_time() moves: the runner reads them
 * before that sample's tick is made), and after a restart,
 * which pg_postmaster_start_time() shows every 5 s; every 30 s as a
 * backstop (pg_settings builds every setting's row: ~0.4 ms a read at 100
 * connections, ~1.2 ms at 1000 here). A restart is recorded with the
 * settings it changed; the checks follow. While a setting waits for a
 * restart, pg_file_settings says what the next start takes (if this role
 * may read it).
 */
export class ServerStateStep {
  readonly aspect = "settings" as const;
  private readonly state: ServerStateState = { startAt: 0, settingsAt: 0, confLoadMs: null, fileSettingsDenied: false };

  constructor(
    private readonly ctx: Pick<StepContext, "target" | "window" | "log" | "cadences" | "cost" | "history" | "address" | "describe">,
  ) {}

  reset(): void {
    this.state.confLoadMs = null;
    this.state.fileSettingsDenied = false;
  }

  /** The start time every 5 s, and at once when the newest sample saw a reload the settings were not read after. */
  due(now: number, sampledConfLoadMs: number | null): boolean {
    return now - this.state.startAt >= START_EVERY_MS || this.reloadedSince(sampledConfLoadMs);
  }

  /** The settings' own cadence, which the budget may stretch. */
  get settingsCadence(): Cadence {
    return {
      lastAt: this.state.settingsAt,
      everyMs: this.ctx.cadences.settingsMs,
      stretch: { statement: "settings", share: BUDGET_SHARE },
    };
  }

  private reloadedSince(sampledConfLoadMs: number | null): boolean {
    return sampledConfLoadMs !== null && this.state.confLoadMs !== null && sampledConfLoadMs !== this.state.confLoadMs;
  }

  /** Reads the start time, and the settings when due, at connect, or after a reload or a restart. */
  async run(session: Session, now: number, ask: ServerStateAsk): Promise<ServerStateRead> {
    const { window, log, target, cost } = this.ctx;
    const state = this.state;
    // A reload: the settings (and pending_restart) now, not at the next round.
    const force = ask.kind === "connect" || this.reloadedSince(ask.sampledConfLoadMs);
    state.startAt = now;
    await session.run("ping", { timed: (ms) => cost.ping(ms) });
    const [server] = await session.run("server_info");
    if (force) this.identify(session, server);
    const restarted = window.serverStart !== null && window.serverStart !== server.postmaster_start_ms;
    const reloaded = server.conf_load_ms !== state.confLoadMs;
    if (!force && !restarted && !reloaded && !(ask.kind === "check" && ask.settingsDue))
      return { kind: "read", settingsRead: false, changed: window.refreshChecks(now, session.capabilities) };
    state.settingsAt = now;
    state.confLoadMs = server.conf_load_ms;
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
    return { kind: "read", settingsRead: true, changed: restart !== null || checksChanged || before !== JSON.stringify(window.settings) };
  }

  /** The value each pending setting takes at the next start, where this role may read pg_file_settings (else unknown). */
  private async pendingValues(session: Session, settings: Settings): Promise<Settings> {
    const names = pendingSettings(settings).map(([name]) => name);
    if (!names.length) return settings;
    if (this.state.fileSettingsDenied) return withPendingValues(settings, null);
    try {
      return withPendingValues(settings, await session.run("file_settings", { values: [names] }));
    } catch (err) {
      if (!isStatementError(err)) throw err;
      if (sqlState(err) === DENIED) this.state.fileSettingsDenied = true;
      else this.ctx.log.once(`target ${this.ctx.target}: pg_file_settings: ${this.ctx.describe(err)}`);
      return withPendingValues(settings, null);
    }
  }

  /**
   * On connect: which server this is, for the history (its address and, where
   * the role may read it, its system identifier, read as the session opened).
   */
  private identify(session: Session, server: ServerInfoRow): void {
    const address = this.ctx.address();
    if (!address) return;
    this.ctx.history.server({
      address,
      systemId: session.systemId,
      serverVersion: server.server_version,
      serverVersionNum: server.server_version_num,
      postmasterStart: server.postmaster_start_ms,
    });
  }
}
