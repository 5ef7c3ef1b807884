// pg_settings in human units, and what changed between two snapshots.
import type { Setting, Settings, SettingChange } from "../../schemas/settings";
import type { SettingRow } from "../../schemas/rows";
import { formatBytes } from "../../format";
import { POOL_SETTINGS, workerSizing, workersFloor } from "./major";

/**
 * The settings inflight reads every 30 s (and at once after a restart), in
 * the order the page shows them. Every io_* setting the server has is read
 * besides (sql/settings.sql): which of io_workers (18) or the pool's (19)
 * exist is the server's to say, and a name it lacks is simply not there.
 */
export const IO_SETTINGS = [
  "io_method",
  "io_workers",
  ...POOL_SETTINGS,
  "io_max_concurrency",
  "io_combine_limit",
  "io_max_combine_limit",
  "effective_io_concurrency",
  "maintenance_io_concurrency",
  "track_io_timing",
  "shared_buffers",
  "data_checksums",
  "max_parallel_workers_per_gather",
  "shared_preload_libraries",
  "block_size",
  // An upgrade (18 to 19) is a restart that changed it: recorded with the settings it changed.
  "server_version",
] as const;
export type IoSettingName = (typeof IO_SETTINGS)[number];

/** The names sql/settings.sql asks for by name; the io_* ones it reads by prefix. */
export const NAMED_SETTINGS: readonly string[] = IO_SETTINGS.filter((name) => !name.startsWith("io_"));

/** Those of them that are numbers (sizes in bytes on /metrics); a server has io_workers or the pool's, never both. */
export const NUMERIC_SETTINGS = [
  "io_workers",
  "io_min_workers",
  "io_max_workers",
  "io_max_concurrency",
  "io_combine_limit",
  "io_max_combine_limit",
  "effective_io_concurrency",
  "maintenance_io_concurrency",
  "shared_buffers",
] as const satisfies readonly IoSettingName[];

/** The settings 18 and 19 both have: what /metrics emits for every target (io_workers is 18's, the pool's 19's). */
const BY_MAJOR: readonly string[] = ["io_workers", ...POOL_SETTINGS];
export const COMMON_SETTINGS: readonly string[] = IO_SETTINGS.filter((name) => !BY_MAJOR.includes(name));
export const COMMON_NUMERIC_SETTINGS: readonly string[] = NUMERIC_SETTINGS.filter((name) => !BY_MAJOR.includes(name));

const UNIT_BYTES = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 } as const;
const UNIT_MS = { ms: 1, s: 1000, min: 60_000 } as const;

/** "16" with unit "8kB" -> bytes; null when the unit is not a size. */
export function settingBytes(setting: string, unit: string | null): number | null {
  if (!unit) return null;
  const m = /^(\d*)(B|kB|MB|GB|TB)$/.exec(unit);
  if (!m) return null;
  const value = Number(setting);
  if (!Number.isFinite(value) || value < 0) return null;
  return value * Number(m[1] || 1) * UNIT_BYTES[m[2] as keyof typeof UNIT_BYTES];
}

export function formatSetting(setting: string, unit: string | null): string {
  const bytes = settingBytes(setting, unit);
  if (bytes !== null) return formatBytes(bytes);
  if (unit && unit in UNIT_MS) {
    const ms = Number(setting) * UNIT_MS[unit as keyof typeof UNIT_MS];
    if (ms === 0) return "0";
    if (ms % 60_000 === 0) return `${ms / 60_000} min`;
    if (ms % 1000 === 0) return `${ms / 1000} s`;
    return `${ms} ms`;
  }
  return unit ? `${setting} ${unit}` : setting;
}

/** Settings pg_settings gives without a unit, though they are sizes in bytes. */
const IMPLICIT_UNITS: Readonly<Record<string, string>> = { block_size: "B", wal_block_size: "B" };

export function toSettings(rows: SettingRow[]): Settings {
  const out: Settings = {};
  for (const row of rows) {
    const s: Setting = {
      setting: row.setting,
      unit: row.unit,
      source: row.source,
      pendingRestart: row.pending_restart,
      display: formatSetting(row.setting, row.unit ?? IMPLICIT_UNITS[row.name] ?? null),
      enumvals: row.enumvals,
    };
    out[row.name] = s;
  }
  return out;
}

/** Every setting whose value differs, in display units. */
export function diffSettings(before: Settings, after: Settings): SettingChange[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changes: SettingChange[] = [];
  for (const name of [...names].sort()) {
    const b = before[name];
    const a = after[name];
    if (b?.setting === a?.setting) continue;
    changes.push({ name, before: b ? b.display : null, after: a ? a.display : null });
  }
  return changes;
}

/** pg_settings sources a reload does not set: a new session of inflight's (after a reconnect) can read another value from them. */
const SESSION_SOURCES: ReadonlySet<string> = new Set(["client", "database", "user", "database user", "session"]);

/**
 * What a reload changed in force: every setting whose value moved, leaving
 * out those it left waiting for a restart (pg_settings keeps their old value
 * then, and their change is the next start's), the server's version, and a
 * value set for inflight's role or database (ALTER ROLE / DATABASE ... SET),
 * which a reload does not change.
 */
export function reloadChanges(before: Settings, after: Settings): SettingChange[] {
  const perSession = (s: Settings[string] | undefined) => s !== undefined && SESSION_SOURCES.has(s.source);
  return diffSettings(before, after).filter(
    (c) => !after[c.name]?.pendingRestart && c.name !== "server_version" && !perSession(before[c.name]) && !perSession(after[c.name]),
  );
}

/** io workers the server should run at least: io_workers (18) or io_min_workers (19) under io_method=worker, else 0. */
export function configuredWorkers(settings: Settings): number | null {
  const method = settings.io_method?.setting;
  if (method === undefined) return null;
  if (method !== "worker") return 0;
  const sizing = workerSizing(settings);
  return sizing ? workersFloor(sizing) : null;
}

/** block_size in bytes (8 kB unless the server says otherwise). */
export function blockSizeOf(settings: Settings): number {
  const n = Number(settings.block_size?.setting);
  return Number.isFinite(n) && n > 0 ? n : 8192;
}
