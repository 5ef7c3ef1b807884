// Every enumeration the project uses, once: `as const` tuples, with the
// unions derived where they are needed. Server, browser and tests import
// them from here.

export const TARGET_STATUSES = ["starting", "up", "down"] as const;

/** The io_methods PostgreSQL 18 knows; a build offers a subset (enumvals). */
export const IO_METHODS = ["sync", "worker", "io_uring"] as const;
export type IoMethod = (typeof IO_METHODS)[number];

/** io_workers (18), io_min_workers and io_max_workers (19) as PostgreSQL accepts them (1 to 32). */
export const IO_WORKERS_RANGE = { min: 1, max: 32 } as const;

/** pg_aios states, in the order a handle passes through them. */
export const AIO_STATES = ["HANDED_OUT", "DEFINED", "STAGED", "SUBMITTED", "COMPLETED_IO", "COMPLETED_SHARED", "COMPLETED_LOCAL"] as const;
export type AioState = (typeof AIO_STATES)[number];

/** pg_aios operations (PgAioOp), as the view names them. */
export const AIO_OPERATIONS = ["readv", "writev"] as const;

/** What a sampled backend was doing: aio = waiting on its async reads, read =
 * a synchronous read (DataFileRead), io = another IO wait, cpu = no wait
 * event, other = a non-IO wait (lock, LWLock, client ...). */
export const RUN_STATES = ["aio", "read", "io", "cpu", "other"] as const;

export const VERDICTS = ["async", "sync", "cpu"] as const;

/** What found a run other than the polls of pg_stat_activity (QueryRun.seenBy). */
export const RUN_FINDERS = ["pg_wait_sampling"] as const;

/** info: neither good nor bad, a fact about this server (io_uring not offered by its build). */
export const CHECK_STATUSES = ["pass", "act", "note", "fail", "unknown", "info"] as const;

/**
 * Collection aspects: each statement family has its own health, so one
 * that fails (pg_stat_io denied, a lock_timeout) shows as itself and never
 * hides behind "up".
 */
export const ASPECTS = ["sampling", "aios", "stat_io", "settings", "statements", "relations"] as const;
export type Aspect = (typeof ASPECTS)[number];

/** ok: the last read worked. failing: it raised an error (lastError). unavailable:
 * the server or the role does not offer it (note says why). waiting: not read yet. */
export const ASPECT_STATES = ["ok", "failing", "unavailable", "waiting"] as const;

/** A statement before and after a restart: faster, slower, no measurable difference, too few calls to tell. */
export const COMPARE_VERDICTS = ["faster", "slower", "same", "too_few"] as const;

/** What the lab runs: the demo's sequential scan, its bitmap heap scan, or SQL of the user's own. */
export const LAB_QUERIES = ["seq", "bitmap", "custom"] as const;
export type LabQuery = (typeof LAB_QUERIES)[number];

/**
 * The settings the lab compares (issue 41): io_method by a restart, the
 * others by a reload (io_workers on 18, the pool's bounds on 19,
 * effective_io_concurrency).
 */
export const LAB_LEVERS = ["io_method", "io_workers", "io_min_workers", "io_max_workers", "effective_io_concurrency"] as const;
export type LabLever = (typeof LAB_LEVERS)[number];

/** idle: never run in this process; running; done: a table; failed: one line says why. */
export const LAB_STATES = ["idle", "running", "done", "failed"] as const;

/**
 * The levers the sizing view judges (issue 41): the io workers (18) or the
 * pool's bounds (19), read-ahead (maintenance_io_concurrency for vacuum),
 * io_method, and io_combine_limit against its ceiling.
 */
export const SIZING_LEVERS = [
  "io_workers",
  "io_max_workers",
  "io_min_workers",
  "effective_io_concurrency",
  "maintenance_io_concurrency",
  "io_method",
  "io_combine_limit",
] as const;
export type SizingLever = (typeof SIZING_LEVERS)[number];

/** raise / lower a number; change: io_method to another value; leave as is; unknown: not enough evidence. */
export const SIZING_VERDICTS = ["raise", "lower", "change", "leave", "unknown"] as const;
export type SizingVerdict = (typeof SIZING_VERDICTS)[number];

/** How a new value takes effect. */
export const SETTING_APPLIES = ["reload", "restart"] as const;
