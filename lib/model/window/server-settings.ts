// One server's settings over time (pure): the settings in force, the
// restarts that changed them (a new postmaster start) and the reloads (a new
// pg_conf_load_time() on the same start), each with what it changed.
import type { Reload, Restart, Settings } from "../../schemas/settings";
import { diffSettings, reloadChanges } from "./settings";

const MAX_RESTARTS = 100;
const MAX_RELOADS = 100;

export class ServerSettings {
  now: Settings = {};
  /** when the settings in force last changed (a reload, a restart) */
  changedAt = 0;
  /** the restarts seen live, oldest first (the newest MAX_RESTARTS) */
  readonly restarts: Restart[] = [];
  /** restarts seen since inflight started watching */
  restartCount = 0;
  /** the reloads seen live that changed a setting in force, oldest first (the newest MAX_RELOADS) */
  readonly reloads: Reload[] = [];
  /** pg_postmaster_start_time() of the server in force; null before the first read */
  start: number | null = null;
  /** when inflight first saw that start */
  startSeenAt = 0;
  /** the restart into the current start, as the history on disk knows it */
  knownStart: Restart | null = null;
  /** the server's pg_conf_load_time() the settings in force were read after; null before a read that had it */
  private confLoadAt: number | null = null;

  /**
   * Records settings and the postmaster start time. A new start time is a
   * restart, recorded with every setting that changed across it. `known`:
   * the restart into this start as the history on disk has it (one made
   * before inflight watched). `confLoad`: the server's pg_conf_load_time()
   * the settings were read after; a new one on the same start is a reload,
   * recorded with the settings it changed in force. Returns the restart.
   */
  record(t: number, settings: Settings, start: number, known: Restart | null, confLoad: number | null): Restart | null {
    let restart: Restart | null = null;
    if (this.start === start && confLoad !== null && this.confLoadAt !== null && confLoad !== this.confLoadAt) {
      const changes = reloadChanges(this.now, settings);
      if (changes.length) this.reloads.push({ at: confLoad, seenAt: t, changes });
      if (this.reloads.length > MAX_RELOADS) this.reloads.shift();
    }
    if (confLoad !== null) this.confLoadAt = confLoad;
    if (this.start !== null && start !== this.start) {
      restart = { at: start, seenAt: t, changes: diffSettings(this.now, settings) };
      this.restarts.push(restart);
      this.restartCount++;
      if (this.restarts.length > MAX_RESTARTS) this.restarts.shift();
    }
    this.knownStart = known?.at === start ? { at: known.at, seenAt: known.seenAt, changes: known.changes } : null;
    if (start !== this.start) this.startSeenAt = t;
    if (restart || JSON.stringify(settings) !== JSON.stringify(this.now)) this.changedAt = t;
    this.start = start;
    this.now = settings;
    return restart;
  }
}
