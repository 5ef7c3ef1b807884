import "server-only";
import type Database from "better-sqlite3";
import type { Restart, Settings } from "../../schemas/settings";
import { diffSettings } from "../../model/window/settings";

// The server state a history records: the settings in force, and each restart with the settings it changed.

interface LastState {
  epoch: number;
  json: string;
  settings: Settings;
  version: string | null;
}

export class ServerStates {
  /** per history: the server start, settings and version last recorded */
  private last = new Map<string, LastState>();

  /**
   * Records the settings when they changed; a new server start is a restart
   * (also one inflight was not running for), with server_version among its
   * changes when it moved (an upgrade keeps the history). `restarted` runs
   * as soon as a restart is written.
   */
  record(
    db: Database.Database,
    history: string,
    t: number,
    settings: Settings,
    postmasterStart: number,
    version: string | null,
    restarted: () => void,
  ): Restart | null {
    const last = this.last.get(history) ?? loadState(db, history);
    const json = JSON.stringify(settings);
    let restart: Restart | null = null;
    if (last && last.epoch !== postmasterStart) {
      const upgraded = version !== null && last.version !== null && last.version !== version;
      // First, and once: the settings read carries server_version too (pg_settings has it).
      const diff = diffSettings(last.settings, settings).filter((c) => !upgraded || c.name !== "server_version");
      restart = {
        at: postmasterStart,
        seenAt: t,
        changes: [...(upgraded ? [{ name: "server_version", before: last.version, after: version }] : []), ...diff],
      };
      db.prepare("INSERT OR IGNORE INTO restarts (history, at, seen_at, changes) VALUES (?, ?, ?, ?)").run(
        history,
        restart.at,
        t,
        JSON.stringify(restart.changes),
      );
      restarted();
    }
    if (!last || last.json !== json || last.epoch !== postmasterStart || (version !== null && last.version !== version)) {
      db.prepare("INSERT OR REPLACE INTO settings (history, t, epoch, settings, server_version) VALUES (?, ?, ?, ?, ?)").run(
        history,
        t,
        postmasterStart,
        json,
        version,
      );
    }
    this.last.set(history, { epoch: postmasterStart, json, settings, version: version ?? last?.version ?? null });
    return restart;
  }
}

function loadState(db: Database.Database, history: string): LastState | undefined {
  const row = db
    .prepare("SELECT epoch, settings, server_version AS version FROM settings WHERE history = ? ORDER BY t DESC LIMIT 1")
    .get(history) as { epoch: number; settings: string; version: string | null } | undefined;
  return row ? { epoch: row.epoch, json: row.settings, settings: JSON.parse(row.settings) as Settings, version: row.version } : undefined;
}
