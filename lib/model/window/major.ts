// What differs between PostgreSQL majors for asynchronous I/O, in one place.
// 18 runs the number of io workers io_workers says; 19 has no io_workers (no
// alias) and sizes a pool itself between io_min_workers and io_max_workers,
// growing when workers see a queue (at most one launch per
// io_worker_launch_interval) and shrinking when the highest-numbered worker
// sat idle for io_worker_idle_timeout. Which one a target runs is read from
// its pg_settings, not its version string: the settings are what it obeys.
import type { Settings } from "../../schemas/settings";

/** 19's pool settings, in the order the page shows them. */
export const POOL_SETTINGS = ["io_min_workers", "io_max_workers", "io_worker_idle_timeout", "io_worker_launch_interval"] as const;

export type WorkerSizing =
  /** 18: io_workers processes, always */
  | { kind: "fixed"; workers: number }
  /** 19: between min and max, on demand */
  | { kind: "pool"; min: number; max: number };

function num(settings: Readonly<Settings>, name: string): number | null {
  const s = settings[name];
  if (!s) return null;
  const n = Number(s.setting);
  return Number.isFinite(n) ? n : null;
}

/** How this server sizes its io workers; null when its settings say neither (not read yet). */
export function workerSizing(settings: Readonly<Settings>): WorkerSizing | null {
  const min = num(settings, "io_min_workers");
  const max = num(settings, "io_max_workers");
  if (min !== null && max !== null) return { kind: "pool", min, max };
  const workers = num(settings, "io_workers");
  return workers === null ? null : { kind: "fixed", workers };
}

/** The server sizes its io worker pool itself (19). */
export function hasPool(settings: Readonly<Settings>): boolean {
  return workerSizing(settings)?.kind === "pool";
}

/** The setting that caps the io workers: what to raise when they are the queue. */
export function workersLeverName(settings: Readonly<Settings>): "io_workers" | "io_max_workers" {
  return hasPool(settings) ? "io_max_workers" : "io_workers";
}

/**
 * "raise io_workers (now 3; a reload applies it)" on 18, "raise
 * io_max_workers (now 8; a reload applies it)" on 19 (both are sighup);
 * `alive` when the setting is not known. The one wording of the lever.
 */
export function workersLever(settings: Readonly<Settings>, alive: number): string {
  return `${workersLeverShort(settings, alive).slice(0, -1)}; a reload applies it)`;
}

/** "raise io_workers (now 1)": the lever as a glance's cell says it (the reload that applies it is in the evidence). */
export function workersLeverShort(settings: Readonly<Settings>, alive: number): string {
  const sizing = workerSizing(settings);
  const now = sizing?.kind === "pool" ? sizing.max : sizing?.kind === "fixed" ? sizing.workers : alive;
  return `raise ${workersLeverName(settings)} (now ${now})`;
}

/** "io_workers 3" on 18, "io_min_workers 2, io_max_workers 8" on 19; null when not known. */
export function workersSettingText(settings: Readonly<Settings>): string | null {
  const sizing = workerSizing(settings);
  if (!sizing) return null;
  return sizing.kind === "pool" ? `io_min_workers ${sizing.min}, io_max_workers ${sizing.max}` : `io_workers ${sizing.workers}`;
}

/** The io workers a server of this sizing should run at least: io_workers on 18, io_min_workers on 19. */
export function workersFloor(sizing: WorkerSizing): number {
  return sizing.kind === "pool" ? sizing.min : sizing.workers;
}

/** The most it may run: io_workers on 18, io_max_workers on 19. */
export function workersCeiling(sizing: WorkerSizing): number {
  return sizing.kind === "pool" ? sizing.max : sizing.workers;
}

/** A major from server_version_num (190000 -> 19); null when not known. */
export function majorOf(serverVersionNum: number | null | undefined): number | null {
  return serverVersionNum ? Math.floor(serverVersionNum / 10_000) : null;
}

/**
 * The major whose index lookups read synchronously (f_sync = true, waiting
 * on IO:DataFileRead), as a finding or a hint names it: the target's own.
 * Measured on 18 (PG18-FACTS) and on 19rc1 (2,000 cold point lookups by
 * index under io_method = worker: every handle f_sync = true, 19 of 20
 * samples DataFileRead); before 18 every read is. Where the major is not
 * known (or not measured), the two measured.
 */
export function syncIndexMajor(major: number | null): string {
  return major !== null && major <= 19 ? `PostgreSQL ${major}` : "PostgreSQL 18 and 19";
}

/** EXPLAIN (ANALYZE, IO) came in 19: per scan node, its prefetch distance and its I/Os. */
export const EXPLAIN_IO_MAJOR = 19;

export function hasExplainIo(major: number | null): boolean {
  return major !== null && major >= EXPLAIN_IO_MAJOR;
}

/** "PostgreSQL 19 asynchronous I/O" for one target's major; without one (a fleet of several) "PostgreSQL asynchronous I/O". */
export function aioTitle(major: number | null = null): string {
  return major !== null && major >= 18 ? `PostgreSQL ${major} asynchronous I/O` : "PostgreSQL asynchronous I/O";
}

/** The one major every target that answered runs; null when they differ or none answered (the title then names none). */
export function fleetMajor(targets: readonly { serverVersionNum: number | null }[]): number | null {
  const majors = new Set(targets.map((t) => majorOf(t.serverVersionNum)).filter((m): m is number => m !== null));
  return majors.size === 1 ? [...majors][0] : null;
}

/** A demo restart that names a setting this major lacks: io_workers on 19, the pool's on 18; null when it fits. */
export function workerSettingsProblem(
  settings: Readonly<Settings>,
  body: { io_workers?: number; io_min_workers?: number; io_max_workers?: number },
): { field: string; message: string } | null {
  const sizing = workerSizing(settings);
  if (!sizing) return null;
  if (sizing.kind === "pool" && body.io_workers !== undefined)
    return { field: "io_workers", message: "io_workers: PostgreSQL 19 has none; set io_min_workers and io_max_workers" };
  if (sizing.kind === "fixed") {
    const name = body.io_min_workers !== undefined ? "io_min_workers" : body.io_max_workers !== undefined ? "io_max_workers" : null;
    if (name) return { field: name, message: `${name}: this server sizes its io workers with io_workers (the pool's bounds came in 19)` };
  }
  const min = body.io_min_workers ?? (sizing.kind === "pool" ? sizing.min : null);
  const max = body.io_max_workers ?? (sizing.kind === "pool" ? sizing.max : null);
  if (min !== null && max !== null && min > max)
    return { field: "io_min_workers", message: `io_min_workers: ${min} is above io_max_workers ${max}` };
  return null;
}
