// The settings a lab compares (pure; the server, `npm run lab` and the page
// share it): how each is applied, which majors have it, its bounds, how
// many sessions run the statement at once by default, and the page's presets.
import { IO_METHODS, IO_WORKERS_RANGE, type LabLever } from "./enums";

interface LeverFacts {
  /** restart: io_method needs one; reload: ALTER SYSTEM + pg_reload_conf() applies it */
  applied: "restart" | "reload";
  /** the first and last major that have it (null: still there) */
  from: number;
  until: number | null;
  /** what the setting may be, as this inflight knows it (the server's pg_settings min_val/max_val are checked too); null: io_method's names */
  bounds: { min: number; max: number } | null;
  /** sessions at once by default: the io workers are a queue only behind several scans */
  concurrency: number;
  /** why it is not on a major it lacks */
  instead: string;
}

export const LEVERS = {
  io_method: { applied: "restart", from: 18, until: null, bounds: null, concurrency: 1, instead: "PostgreSQL 18 or later is needed" },
  io_workers: {
    applied: "reload",
    from: 18,
    until: 18,
    bounds: IO_WORKERS_RANGE,
    concurrency: 4,
    instead: "19 sizes its io worker pool itself: compare io_min_workers or io_max_workers",
  },
  io_min_workers: {
    applied: "reload",
    from: 19,
    until: null,
    bounds: IO_WORKERS_RANGE,
    concurrency: 4,
    instead: "18 has a fixed number of io workers: compare io_workers",
  },
  io_max_workers: {
    applied: "reload",
    from: 19,
    until: null,
    bounds: IO_WORKERS_RANGE,
    concurrency: 4,
    instead: "18 has a fixed number of io workers: compare io_workers",
  },
  effective_io_concurrency: {
    applied: "reload",
    from: 18,
    until: null,
    bounds: { min: 0, max: 1000 },
    concurrency: 1,
    instead: "PostgreSQL 18 or later is needed",
  },
} as const satisfies Record<LabLever, LeverFacts>;

/** Sessions running the statement at once that a lab may ask for. */
export const LAB_CONCURRENCY = { min: 1, max: 16 } as const;

/** Null when PostgreSQL `major` has the lever; else why not, in one line. */
export function leverMissing(lever: LabLever, major: number): string | null {
  const f: LeverFacts = LEVERS[lever];
  if (major >= f.from && (f.until === null || major <= f.until)) return null;
  return `${lever} does not exist on PostgreSQL ${major} (${f.instead})`;
}

/** What is wrong with the values asked for (static bounds), or null. */
export function leverValuesProblem(lever: LabLever, values: readonly string[]): string | null {
  if (values.length === 0) return "needs at least one value";
  if (new Set(values).size !== values.length) return "names a value twice";
  const bounds = LEVERS[lever].bounds;
  if (bounds === null) {
    const bad = values.find((v) => !(IO_METHODS as readonly string[]).includes(v));
    return bad === undefined ? null : `${bad} is not an io_method (${IO_METHODS.join(", ")})`;
  }
  return valuesOutside(lever, values, bounds);
}

/** The first value that is not a whole number within [min, max], said with the bounds; null when all are. */
export function valuesOutside(lever: LabLever, values: readonly string[], { min, max }: { min: number; max: number }): string | null {
  const bad = values.find((v) => !/^\d{1,9}$/.test(v) || Number(v) < min || Number(v) > max);
  return bad === undefined ? null : `${lever} must be a whole number from ${min} to ${max}, not ${bad}`;
}

/** "io_workers = 3"; io_method's values stand alone ("sync"), as the io_method lab has always said them. */
export const valueLabel = (lever: LabLever, value: string) => (lever === "io_method" ? value : `${lever} = ${value}`);

export interface LabPreset {
  id: string;
  label: string;
  lever: LabLever;
  values: string[];
  concurrency: number;
}

/** The page's presets; each shown only where the server has its lever. */
export const LAB_PRESETS: readonly LabPreset[] = [
  { id: "io_method", label: "io_method: sync vs worker (1 session)", lever: "io_method", values: ["sync", "worker"], concurrency: 1 },
  { id: "io_workers", label: "io_workers: 1 vs 3 (4 sessions)", lever: "io_workers", values: ["1", "3"], concurrency: 4 },
  { id: "io_max_workers", label: "io_max_workers: 1 vs 8 (4 sessions)", lever: "io_max_workers", values: ["1", "8"], concurrency: 4 },
  {
    id: "effective_io_concurrency",
    label: "effective_io_concurrency: 1 vs 16 (1 session)",
    lever: "effective_io_concurrency",
    values: ["1", "16"],
    concurrency: 1,
  },
];

/** The levers and presets of a server of `major` (null: not known yet, 18 assumed). */
export function leversOf(major: number | null): { levers: LabLever[]; presets: LabPreset[] } {
  const m = major ?? 18;
  const levers = (Object.keys(LEVERS) as LabLever[]).filter((l) => leverMissing(l, m) === null);
  return { levers, presets: LAB_PRESETS.filter((p) => levers.includes(p.lever)) };
}
