// Whether the io settings in force are the ones intended, as rows of
// pass / note / fail / unknown with one line of why and what to do.
import type { Capabilities } from "../../schemas/target";
import type { Check, Settings } from "../../schemas/settings";
import type { Tick } from "../../schemas/tick";
import { formatBytes } from "../../format";
import { TRACK_IO_TIMING_SQL } from "./advice";
import { pendingText } from "./pending";
import { workerSizing } from "./major";
import { settingBytes } from "./settings";

export interface CheckInput {
  settings: Settings;
  capabilities: Capabilities | null;
  /** the newest tick, for io workers alive */
  lastTick: Tick | undefined;
  /** async handles were seen in flight in the window */
  asyncSeen: boolean;
  /** any read was seen in the window (async or synchronous) */
  readsSeen: boolean;
}

type CheckFn = (input: CheckInput) => Check | null;

const pendingRestart: CheckFn = ({ settings }) => {
  const text = pendingText(settings);
  if (!text) {
    return {
      id: "pending_restart",
      status: "pass",
      title: "Pending restart",
      message: "No io setting waits for a restart: the values shown are the ones in force.",
    };
  }
  return { id: "pending_restart", status: "note", title: "Pending restart", message: text };
};

/** The two ways io_method = io_uring fails to start, and what to do about each. */
export const IO_URING_NO_LIBURING =
  "Not offered: this build was made without liburing (io_method offers only sync and worker). io_uring needs a PostgreSQL (18 or later) built --with-liburing, such as Debian's or PGDG's postgresql-18 and postgresql-19 packages.";
export const IO_URING_SECCOMP =
  'A container\'s seccomp profile can still stop it at start ("could not setup io_uring queue: Operation not permitted" in the server log): allow the io_uring_setup, io_uring_enter and io_uring_register system calls (Docker: a seccomp profile that permits them), or stay on io_method = worker.';

const ioUring: CheckFn = ({ settings }) => {
  const vals = settings.io_method?.enumvals;
  if (!vals) return null;
  const offered = vals.includes("io_uring");
  const inForce = settings.io_method?.setting === "io_uring";
  return {
    id: "io_uring",
    // A build without liburing is a fact about this server, not a fault to fix.
    status: offered ? "pass" : "info",
    title: "io_uring",
    message: inForce
      ? "io_method = io_uring is in force: reads are submitted to the kernel through io_uring by each backend (no io workers)."
      : offered
        ? `This build offers io_method = io_uring (choices: ${vals.join(", ")}). ${IO_URING_SECCOMP}`
        : IO_URING_NO_LIBURING,
  };
};

const combineLimit: CheckFn = ({ settings }) => {
  const limit = settings.io_combine_limit;
  const max = settings.io_max_combine_limit;
  if (!limit || !max) return null;
  const a = settingBytes(limit.setting, limit.unit);
  const b = settingBytes(max.setting, max.unit);
  if (a === null || b === null) return null;
  if (a <= b) {
    return {
      id: "io_combine_limit",
      status: "pass",
      title: "io_combine_limit",
      message: `Reads are combined up to ${formatBytes(a)} (io_max_combine_limit ${formatBytes(b)}).`,
    };
  }
  return {
    id: "io_combine_limit",
    status: "note",
    title: "io_combine_limit",
    message: `io_combine_limit ${formatBytes(a)} is above io_max_combine_limit ${formatBytes(b)}: it is clamped silently, the effective value is ${formatBytes(b)}. Raise io_max_combine_limit (restart) or lower io_combine_limit.`,
  };
};

const ioWorkers: CheckFn = ({ settings, lastTick, capabilities }) => {
  const method = settings.io_method?.setting;
  if (!method || !lastTick) return null;
  if (capabilities && !capabilities.readAllStats) {
    // Without pg_read_all_stats, pg_stat_activity hides the io workers' backend_type.
    return {
      id: "io_workers",
      status: "unknown",
      title: "io workers",
      message: "This role cannot see the io worker processes in pg_stat_activity: GRANT pg_monitor TO it.",
    };
  }
  const alive = lastTick.workers.alive;
  if (method !== "worker") {
    return alive === 0
      ? { id: "io_workers", status: "pass", title: "io workers", message: `io_method = ${method}: no io worker processes, as expected.` }
      : {
          id: "io_workers",
          status: "note",
          title: "io workers",
          message: `io_method = ${method}, yet ${alive} io worker processes are running.`,
        };
  }
  const sizing = workerSizing(settings);
  if (!sizing) return null;
  return sizing.kind === "pool" ? poolCheck(alive, sizing) : fixedCheck(alive, sizing.workers);
};

/** 18: io_workers processes, no more, no fewer. */
function fixedCheck(alive: number, want: number): Check {
  if (alive === want) {
    return { id: "io_workers", status: "pass", title: "io workers", message: `${alive} io workers alive, as io_workers = ${want} asks.` };
  }
  return {
    id: "io_workers",
    status: alive === 0 ? "fail" : "note",
    title: "io workers",
    message: `${alive} io workers alive, io_workers = ${want}. Workers may be starting or stopping; if it lasts, check the server log.`,
  };
}

/** 19: the pool sizes itself; any count within io_min_workers..io_max_workers is as asked. */
function poolCheck(alive: number, pool: { min: number; max: number }): Check {
  const band = `io_min_workers = ${pool.min} to io_max_workers = ${pool.max}`;
  if (alive >= pool.min && alive <= pool.max) {
    return {
      id: "io_workers",
      status: "pass",
      title: "io workers",
      message: `${alive} io workers alive, within ${band}: the pool grows on demand and shrinks when idle.`,
    };
  }
  return {
    id: "io_workers",
    status: alive === 0 ? "fail" : "note",
    title: "io workers",
    message: `${alive} io workers alive, outside ${band}. Workers may be starting or stopping (or a bound just changed); if it lasts, check the server log.`,
  };
}

const trackIoTiming: CheckFn = ({ settings }) => {
  const s = settings.track_io_timing;
  if (!s) return null;
  return s.setting === "on"
    ? {
        id: "track_io_timing",
        status: "pass",
        title: "track_io_timing",
        message: "On: read time is measured in pg_stat_io and pg_stat_statements.",
      }
    : {
        id: "track_io_timing",
        status: "note",
        title: "track_io_timing",
        message: `Off: read wait cannot be measured (read time reads 0). ${TRACK_IO_TIMING_SQL.replace("\n", " ")}`,
      };
};

const readAhead: CheckFn = ({ settings }) => {
  const s = settings.effective_io_concurrency;
  if (!s) return null;
  return s.setting === "0"
    ? {
        id: "effective_io_concurrency",
        status: "note",
        title: "Read-ahead",
        message: "effective_io_concurrency = 0: read-ahead is off, reads are not issued ahead of need.",
      }
    : {
        id: "effective_io_concurrency",
        status: "pass",
        title: "Read-ahead",
        // A limit, not a count: beside a peak of 1 in flight "16 reads ahead" read as a contradiction.
        message: `effective_io_concurrency = ${s.setting}: a scan may keep at most ${s.setting} reads in flight ahead of need (a limit, not a count; the in-flight chart shows how many there are).`,
      };
};

const asyncObserved: CheckFn = ({ settings, capabilities, asyncSeen, readsSeen }) => {
  const method = settings.io_method?.setting;
  if (!method) return null;
  if (capabilities && !capabilities.aios) return null;
  if (capabilities?.aiosDenied) {
    return {
      id: "async_observed",
      status: "unknown",
      title: "Async reads observed",
      message: "pg_aios is denied to this role: GRANT pg_monitor TO it to see reads in flight.",
    };
  }
  if (method === "sync") {
    return {
      id: "async_observed",
      status: asyncSeen ? "note" : "pass",
      title: "Async reads observed",
      message: asyncSeen
        ? "io_method = sync, yet async handles were seen in the window."
        : "io_method = sync: reads are synchronous, none async seen.",
    };
  }
  if (asyncSeen)
    return {
      id: "async_observed",
      status: "pass",
      title: "Async reads observed",
      message: `Async reads (pg_aios, f_sync = false) were seen in flight in the window: io_method = ${method} is working.`,
    };
  return {
    id: "async_observed",
    status: "unknown",
    title: "Async reads observed",
    message: readsSeen
      ? "Reads ran in the window, none of them async yet (index scans read synchronously in 18). Not yet observed."
      : "Not yet observed: nothing has read from disk in the window.",
  };
};

const CHECKS: CheckFn[] = [pendingRestart, ioUring, combineLimit, ioWorkers, trackIoTiming, readAhead, asyncObserved];

export function computeChecks(input: CheckInput): Check[] {
  return CHECKS.map((check) => check(input)).filter((c): c is Check => c !== null);
}
