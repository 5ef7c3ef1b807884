// The figures a finding cites, computed once from a run, so every sentence
// and the page agree on them.
import { formatBytes } from "../../../format";
import type { QueryRun } from "../../../schemas/runs";
import { formatTimeLeft } from "../time-left";

export interface RunFigures {
  samples: number;
  /** the one read-wait figure: samples waiting on a read (async or synchronous) / samples */
  readWait: number;
  asyncWait: number;
  syncWait: number;
  cpu: number;
  /** samples with async reads in flight / samples that read pg_aios */
  inFlight: number | null;
  elapsedMs: number;
  /** the run reads asynchronously: its verdict, weighed (lib/model/window/verdict.ts), so a finding never calls async what its row calls synchronous */
  async: boolean;
  /** any read seen (a read wait, or a handle either way) */
  reads: boolean;
  meanInFlight: number | null;
}

export function runFigures(run: QueryRun, now: number): RunFigures {
  const n = Math.max(1, run.samples);
  return {
    samples: run.samples,
    readWait: (run.aioWaitSamples + run.readWaitSamples) / n,
    asyncWait: run.aioWaitSamples / n,
    syncWait: run.readWaitSamples / n,
    cpu: run.cpuSamples / n,
    inFlight: run.aioReadSamples > 0 ? run.aioSamples / run.aioReadSamples : null,
    elapsedMs: Math.max(0, (run.endedAt ?? Math.max(now, run.lastSeen)) - run.startedAt),
    async: run.verdict === "async",
    reads: run.aioSamples > 0 || run.aioWaitSamples > 0 || run.readWaitSamples > 0 || run.syncSamples > 0,
    meanInFlight: run.aioSamples > 0 ? run.sumInFlight / run.aioSamples : null,
  };
}

export const pct = (share: number) => (share > 0 && share < 0.01 ? "<1%" : `${Math.round(share * 100)}%`);

/** "`select count(*) from t where …`": the start of the text, one line. */
export function quoteQuery(query: string, max = 60): string {
  const flat = query.replace(/\s+/g, " ").trim();
  return `\`${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}\``;
}

/**
 * "79% of public.events scanned (6-9 s left at 180 MB/s)", "about 4.0 s
 * left" once the range is narrow (formatTimeLeft); "79% scanned"
 * when the sentence already named the table. Progress is "scanned", never
 * "read": "read" is the read-wait share's word.
 */
export function progressText(run: QueryRun, blockSize: number, named?: string): string | null {
  if (run.progress === null) return null;
  const left = timeLeftText(run, blockSize);
  const of = run.progressRelation && run.progressRelation === named ? "" : ` of ${run.progressRelation ?? "its table"}`;
  return `${pct(run.progress)}${of} scanned${left ? ` (${left})` : ""}`;
}

/** "6-9 s left at 180 MB/s", "about 4.0 s left", "reading 180 MB/s": the finding's and the runs table's words. */
export function timeLeftText(run: QueryRun, blockSize: number): string | null {
  const rate = run.readBlocksPerSec !== null && run.readBlocksPerSec > 0 ? `${formatBytes(run.readBlocksPerSec * blockSize)}/s` : null;
  const left = formatTimeLeft(run);
  return left ? `${left}${rate ? ` at ${rate}` : ""}` : rate ? `reading ${rate}` : null;
}

/** A clause as a sentence's start. */
export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
