// Plain words for the terms a newcomer to PostgreSQL 18/19's asynchronous I/O
// does not know, in one place: every panel, finding and check that names a
// term explains it from here (a hint on hover, not a manual).

import { syncIndexMajor } from "../model/window/major";

export const GLOSSARY = {
  pg_aios: {
    match: ["pg_aios"],
    text: "PostgreSQL's view (18 and later) of the I/O handles in use right now: one row per read (or write) under way, with its state and the blocks it covers. inflight samples it to see reads in flight.",
  },
  handle: {
    match: ["handles", "handle"],
    text: "An I/O handle: the slot PostgreSQL uses for one read of one or more adjacent blocks, from when it is issued until it completes. One row of pg_aios.",
  },
  f_sync: {
    match: ["f_sync"],
    text: "f_sync = true: a read the backend executes itself and waits for (synchronous), though it passes through an I/O handle. f_sync = false: an asynchronous read, issued ahead of need and executed by an io worker or the kernel (io_uring).",
  },
  HANDED_OUT: { match: ["HANDED_OUT"], text: "The handle was just taken by a backend; no read is defined on it yet." },
  DEFINED: { match: ["DEFINED"], text: "The read is defined on the handle (which blocks, where to) but not yet staged or submitted." },
  STAGED: { match: ["STAGED"], text: "The read is defined and waits to be submitted (batched with others)." },
  SUBMITTED: { match: ["SUBMITTED"], text: "The read was handed to an io worker or to the kernel (io_uring) and is not done yet." },
  COMPLETED_IO: {
    match: ["completed io", "COMPLETED_IO"],
    text: "The read itself has finished (the data is in memory), but the issuing backend has not yet checked it and marked its buffers valid.",
  },
  COMPLETED_SHARED: {
    match: ["completed shared", "COMPLETED_SHARED"],
    text: "The read is finished and its buffers are marked valid in shared buffers: any backend can use the pages; the handle is about to be released.",
  },
  COMPLETED_LOCAL: { match: ["COMPLETED_LOCAL"], text: "The read of a temporary (backend-local) buffer is finished." },
  IoWorkerMain: {
    match: ["IoWorkerMain"],
    text: "The wait event of an idle io worker: it waits for a read to execute. A worker not in IoWorkerMain is busy executing one.",
  },
  AioIoCompletion: {
    match: ["IO:AioIoCompletion", "AioIoCompletion"],
    text: "The backend waits for one of its asynchronous reads to complete: it asked for the blocks ahead of time, but they have not arrived yet.",
  },
  DataFileRead: {
    match: ["IO:DataFileRead", "DataFileRead"],
    text: (major) =>
      `The backend reads a block itself and waits for it (a synchronous read): what index lookups do in ${syncIndexMajor(major)}, and every read under io_method = sync.`,
  },
  AioIoUringSubmit: {
    match: ["IO:AioIoUringSubmit", "AioIoUringSubmit"],
    text: "io_uring only: the backend is handing its reads to the kernel's submission queue.",
  },
  AioIoUringExecution: {
    match: ["IO:AioIoUringExecution", "AioIoUringExecution"],
    text: "io_uring only: the backend waits while the kernel executes a read it submitted (the io_uring counterpart of waiting on an io worker).",
  },
  AioWorkerSubmissionQueue: {
    match: ["LWLock:AioWorkerSubmissionQueue", "AioWorkerSubmissionQueue"],
    text: "Backends waiting to put reads on the io workers' queue: the io workers cannot keep up.",
  },
  AioWorkerControl: {
    match: ["LWLock:AioWorkerControl", "AioWorkerControl"],
    text: 'PostgreSQL 19, io_method = worker: waiting to update the io worker pool\'s shared information (pg_wait_events: "Waiting to update AIO worker information"), the lock that came with the pool sizing itself as workers are launched and exit.',
  },
  io_method: {
    match: ["io_method"],
    text: "How PostgreSQL (18 and later) reads: worker (io worker processes read ahead for the backends; the default), io_uring (each backend submits its reads to the Linux kernel; needs a build with liburing), sync (each backend reads and waits, as before 18).",
  },
  io_uring: {
    match: ["io_uring"],
    text: "A Linux kernel interface for asynchronous I/O. With io_method = io_uring each backend submits its reads to the kernel itself: there are no io workers, by design. Needs a PostgreSQL built with liburing.",
  },
  io_workers: {
    match: ["io_workers", "io workers", "io worker"],
    text: "With io_method = worker: the processes that execute asynchronous reads for every backend. PostgreSQL 18 runs a fixed number of them; 19 sizes a pool between io_min_workers and io_max_workers. Unused under io_method = sync or io_uring.",
  },
  io_max_workers: {
    match: ["io_max_workers", "io worker pool"],
    text: "PostgreSQL 19: the most io workers the pool may grow to (default 8; a reload applies it). The pool launches one when reads queue for the workers, at most one per io_worker_launch_interval.",
  },
  io_min_workers: {
    match: ["io_min_workers"],
    text: "PostgreSQL 19: the io workers the pool keeps even when idle (default 2; a reload applies it).",
  },
  io_worker_idle_timeout: {
    match: ["io_worker_idle_timeout"],
    text: "PostgreSQL 19: how long the highest-numbered io worker may sit idle before it exits, shrinking the pool toward io_min_workers (default 60 s).",
  },
  io_worker_launch_interval: {
    match: ["io_worker_launch_interval"],
    text: "PostgreSQL 19: the least time between two io worker launches while the pool grows (default 100 ms).",
  },
  io_max_concurrency: {
    match: ["io_max_concurrency"],
    text: "The most I/O handles one process may have in use at once (-1 derives it from shared_buffers). Reading pg_aios walks about max_connections x io_max_concurrency slots, which is why it costs more on large servers.",
  },
  effective_io_concurrency: {
    match: ["effective_io_concurrency"],
    text: "How many reads a scan may keep in flight ahead of need: a limit, not a count. How many are really in flight is what the charts show.",
  },
  io_combine_limit: {
    match: ["io_combine_limit"],
    text: "The largest read PostgreSQL builds from adjacent blocks (128 kB = 16 blocks of 8 kB by default).",
  },
  pg_stat_io: {
    match: ["pg_stat_io"],
    text: "Cumulative I/O counters per backend type. A backend's reads are added when its statement ends, not while it runs: a long scan lands all at once.",
  },
  pg_stat_statements: {
    match: ["pg_stat_statements"],
    text: "Per-statement totals (calls, execution time, read time): exact, counted when each statement ends.",
  },
  parallel: {
    match: ["parallel workers", "parallel"],
    text: "Parallel query workers that helped this statement: their samples and reads are folded into the leader's run; pg_stat_statements sums their read time with the leader's.",
  },
  track_io_timing: {
    match: ["track_io_timing"],
    text: "Times every read: without it, read time in pg_stat_io and pg_stat_statements reads 0, which is unknown, not zero.",
  },
} as const satisfies Record<string, { match: readonly string[]; text: string | ((major: number | null) => string) }>;

export type Term = keyof typeof GLOSSARY;
export const TERMS = Object.keys(GLOSSARY) as Term[];

/** A term's explanation; one that differs by major follows the target's (`major`), else names the majors it holds for. */
export function gloss(term: Term, major: number | null = null): string {
  const text: string | ((major: number | null) => string) = GLOSSARY[term].text;
  return typeof text === "function" ? text(major) : text;
}

export interface TextPart {
  text: string;
  /** the term this part names, explained on hover */
  term?: Term;
  /** a quoted query (`...` in a finding): shown in monospace */
  code?: boolean;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const ALL = TERMS.flatMap((term) => GLOSSARY[term].match.map((m: string) => ({ m, term }))).sort((a, b) => b.m.length - a.m.length);
const BY_TEXT = new Map<string, Term>(ALL.map(({ m, term }) => [m, term]));
// Whole words only: "handle" in "handles", not "io_workers" inside "io_workers_idle_timeout".
const PATTERN = new RegExp(`(?<![\\w:])(${ALL.map(({ m }) => escape(m)).join("|")})(?![\\w])`, "g");

/** Running text with its known terms marked, the first time each appears. */
export function glossText(text: string, seen = new Set<Term>()): TextPart[] {
  const parts: TextPart[] = [];
  let at = 0;
  for (const m of text.matchAll(PATTERN)) {
    const term = BY_TEXT.get(m[1]);
    if (!term || seen.has(term)) continue;
    seen.add(term);
    if (m.index > at) parts.push({ text: text.slice(at, m.index) });
    parts.push({ text: m[1], term });
    at = m.index + m[1].length;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}

/** A finding's sentence: `...` quotes as code (never glossed), the rest glossed. */
export function sentenceParts(text: string): TextPart[] {
  const seen = new Set<Term>();
  return text.split(/(`[^`]*`)/).flatMap((piece): TextPart[] => {
    if (!piece) return [];
    if (piece.length >= 2 && piece.startsWith("`") && piece.endsWith("`")) return [{ text: piece.slice(1, -1), code: true }];
    return glossText(piece, seen);
  });
}
