// pg_wait_sampling's history ring, read about once a second (pure): the
// samples new since the last read, on inflight's clock, and whether the
// ring wrapped between two reads (samples lost) with the history_size that
// would hold a second of this server's samples.
import type { RunState } from "../schemas/tick";
import type { WaitHistoryRow } from "../schemas/rows";
import { classifyWait, waitKey } from "./derive";

/** One backend's wait event at one instant, as pg_wait_sampling recorded it. */
export interface WaitSample {
  pid: number;
  /** on inflight's clock (ms): the server's ts moved by the offset seen at the read */
  t: number;
  /** on the server's clock (ms): where it falls in a run (whose start is the server's query_start) */
  serverMs: number;
  state: RunState;
  /** "IO:AioIoCompletion", "CPU" */
  key: string;
  /** null: none recorded (0) */
  queryId: string | null;
}

/** The ring dropped samples between two reads. */
export interface RingWrap {
  /** the span no sample is left of, ms */
  lostMs: number;
  /** rows the ring takes a second on this server (every process it samples) */
  rowsPerSecond: number;
  /** a history_size that holds a second of them, with a quarter to spare */
  holdsASecond: number;
}

export interface HistoryRead {
  samples: WaitSample[];
  /** the span the new samples cover (ms, from the last read's newest to this one's); 0 on the first read */
  spanMs: number;
  wrap: RingWrap | null;
}

/** A history_size that holds `seconds` of `rowsPerSecond`, a quarter to spare, in thousands. */
export function historySizeFor(rowsPerSecond: number, seconds = 1): number {
  return Math.max(1000, Math.ceil((rowsPerSecond * seconds * 1.25) / 1000) * 1000);
}

export class WaitHistoryReader {
  /** the newest ts read (epoch µs): the next read's cursor; null before the first */
  private cursorUs: number | null = null;

  /** What to pass as wait_history.sql's $1. */
  get cursor(): string | null {
    return this.cursorUs === null ? null : String(this.cursorUs);
  }

  /** A new connection: the next read only sets the cursor again. */
  reset(): void {
    this.cursorUs = null;
  }

  /**
   * `localMs`: inflight's clock when the row came back; `historySize`: the
   * ring's length as configured (a ring not yet full cannot have wrapped).
   */
  read(row: WaitHistoryRow, localMs: number, historySize: number): HistoryRead {
    const before = this.cursorUs;
    if (row.newest_us !== null) this.cursorUs = Math.max(before ?? 0, row.newest_us);
    if (before === null || row.newest_us === null) return { samples: [], spanMs: 0, wrap: null };
    const offsetMs = localMs - row.now_us / 1000;
    const samples = row.samples.map(([pid, tsUs, type, event, queryId]): WaitSample => {
      const serverMs = tsUs / 1000;
      return { pid, t: serverMs + offsetMs, serverMs, state: classifyWait(type, event), key: waitKey(type, event), queryId: queryId === "0" ? null : queryId };
    });
    return { samples, spanMs: Math.max(0, (row.newest_us - before) / 1000), wrap: wrapOf(row, before, historySize) };
  }
}

/** The oldest sample left is newer than the last one read, in a full ring: what lay between was overwritten. */
function wrapOf(row: WaitHistoryRow, cursorUs: number, historySize: number): RingWrap | null {
  if (row.oldest_us === null || row.newest_us === null || row.ring_rows < historySize || row.oldest_us <= cursorUs) return null;
  const spanS = (row.newest_us - row.oldest_us) / 1e6;
  const rowsPerSecond = spanS > 0 ? Math.round(row.ring_rows / spanS) : row.ring_rows;
  return { lostMs: Math.round((row.oldest_us - cursorUs) / 1000), rowsPerSecond, holdsASecond: historySizeFor(rowsPerSecond) };
}

/**
 * The samples of `pids` (the backends a tick counts: active clients and
 * their parallel workers) as average backends in each wait over `spanMs`:
 * what a tick's waits say, in the same unit as one pg_stat_activity sample.
 */
export function averageWaits(samples: readonly WaitSample[], pids: ReadonlySet<number>, spanMs: number, periodMs: number): Record<string, number> {
  const periods = Math.max(1, Math.round(spanMs / periodMs));
  const counts: Record<string, number> = {};
  for (const s of samples) if (pids.has(s.pid)) counts[s.key] = (counts[s.key] ?? 0) + 1;
  for (const key in counts) counts[key] = Math.round((counts[key] / periods) * 100) / 100;
  return counts;
}
