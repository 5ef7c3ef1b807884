// A finding at a glance (pure): a few plain words per cell, what a person
// reads before the charts. The finding's sentence stays its evidence, opened
// on demand; these words say the same thing shorter, never another figure.
import type { Glance } from "../../../schemas/findings";
import type { QueryRun } from "../../../schemas/runs";
import { formatTimeLeft } from "../time-left";
import { pct } from "./figures";
import { COMPLETION_WAIT, SUBMISSION_QUEUE_WAIT } from "./workers";

/** What a run's samples can show it doing. */
export type Doing = "async" | "sync" | "cpu" | "queue" | "other";

/** The class of one wait key ("IO:AioIoCompletion", "CPU", "Lock:relation"). */
export function doingOf(key: string): Doing {
  if (key === "CPU") return "cpu";
  if (key === SUBMISSION_QUEUE_WAIT) return "queue";
  if (key === COMPLETION_WAIT || key.startsWith("IO:Aio")) return "async";
  if (key === "IO:DataFileRead" || key === "IO:DataFilePrefetch") return "sync";
  return "other";
}

const DOING_WORDS = {
  async: "waiting on its async reads",
  sync: "waiting on its own synchronous reads",
  cpu: "on CPU",
  queue: "waiting to hand reads to the io workers",
  other: "waiting",
} as const satisfies Record<Doing, string>;

/**
 * What a running query does now, from its last few samples (the most
 * frequent kind of wait among them); a wait that is none of the reads is
 * named ("waiting on Lock:relation"). Null without a sample.
 */
export function doingNow(run: Pick<QueryRun, "nowWaits">): { doing: Doing; words: string } | null {
  const byDoing = new Map<Doing, { n: number; key: string; keyN: number }>();
  for (const [key, n] of Object.entries(run.nowWaits ?? {})) {
    const d = doingOf(key);
    const cur = byDoing.get(d) ?? { n: 0, key, keyN: 0 };
    cur.n += n;
    if (n > cur.keyN) Object.assign(cur, { key, keyN: n });
    byDoing.set(d, cur);
  }
  // Ties go to the reads: they are what the page is about.
  const order: Doing[] = ["async", "sync", "queue", "other", "cpu"];
  let best: Doing | null = null;
  for (const d of order) if (byDoing.has(d) && (best === null || byDoing.get(d)!.n > byDoing.get(best)!.n)) best = d;
  if (best === null) return null;
  return { doing: best, words: best === "other" ? `waiting on ${byDoing.get(best)!.key}` : DOING_WORDS[best] };
}

/** "40%" (of the table its sentence names); null without a scan position. */
export function progressGlance(run: Pick<QueryRun, "progress">): string | null {
  return run.progress === null ? null : pct(run.progress);
}

/** "~6 s", "6-9 s" while the rate moves (the column says "left", as the sentence does); null when not known. */
export function leftGlance(run: Pick<QueryRun, "etaMs" | "etaRangeMs">): string | null {
  const left = formatTimeLeft(run);
  return left === null ? null : left.replace(/ left$/, "").replace(/^about /, "~");
}

/** "SELECT count(*) FROM readings…": the statement's start, for a cell. */
export function queryGlance(query: string, max = 34): string {
  const flat = query.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A running query's glance: the statement, what it does now, how far, how long left, the lever. */
export function runGlance(run: QueryRun, lever: string | null, fallback: string): Glance & { query: string } {
  return {
    query: queryGlance(run.query),
    now: doingNow(run)?.words ?? fallback,
    progress: progressGlance(run),
    left: leftGlance(run),
    lever,
  };
}

/** The lever said when none of the I/O settings would help. */
export const NO_LEVER = "no I/O setting will help";
