// pg_wait_sampling's profile, read about once a second (pure): what each
// count (pid, wait event, queryid) rose by since the last read, over the
// span between the two reads on inflight's clock. The profile holds no
// timestamps: a delta is placed in time by the span it rose in, and the
// runs it belongs to by pid and queryid (run-waits.ts).
import type { RunState } from "../../schemas/tick";
import type { WaitProfileRow } from "../../schemas/rows";
import { classifyWait, waitKey } from "./derive";

/** One backend's samples in one wait between two reads. */
export interface WaitDelta {
  pid: number;
  state: RunState;
  /** "IO:AioIoCompletion", "CPU" */
  key: string;
  /** null: none recorded (0) */
  queryId: string | null;
  /** samples taken in the span */
  n: number;
}

export interface ProfileRead {
  deltas: WaitDelta[];
  /** the span the deltas rose in, on inflight's clock (ms): from the last read to this one */
  from: number;
  to: number;
  /** add to a server time (ms, as query_start) to have it on inflight's clock */
  offsetMs: number;
  /** pg_wait_sampling.profile_period: a sample stands for this long (ms) */
  periodMs: number;
  /** the session that read it: inflight's own, never a run */
  ownPid: number | null;
}

export class WaitProfileReader {
  /** the counts at the last read, by pid|type|event|queryid; null before the first */
  private last: Map<string, number> | null = null;
  private lastAt = 0;

  /** A new connection: the next read only takes the counts again. */
  reset(): void {
    this.last = null;
  }

  /** `localMs`: inflight's clock when the row came back. Null on the first read, which only takes the counts. */
  read(row: WaitProfileRow, localMs: number, periodMs = 10): ProfileRead | null {
    const before = this.last;
    const from = this.lastAt;
    this.last = new Map();
    this.lastAt = localMs;
    const deltas: WaitDelta[] = [];
    for (const [pid, type, event, queryId, count] of row.counts) {
      const id = `${pid}|${type}|${event}|${queryId}`;
      this.last.set(id, count);
      if (!before) continue;
      const was = before.get(id) ?? 0;
      // a count below the last read's: the profile was reset since (pg_wait_sampling_reset_profile)
      const n = count >= was ? count - was : count;
      if (n > 0)
        deltas.push({ pid, state: classifyWait(type, event), key: waitKey(type, event), queryId: queryId === "0" ? null : queryId, n });
    }
    return before ? { deltas, from, to: localMs, offsetMs: localMs - row.now_ms, periodMs, ownPid: row.own_pid } : null;
  }
}

/**
 * The samples of `pids` (the backends a tick counts: active clients and
 * their parallel workers) as average backends in each wait over the span:
 * what a tick's waits say, in the same unit as one pg_stat_activity sample.
 */
export function averageWaits(read: ProfileRead, pids: ReadonlySet<number>, periodMs: number): Record<string, number> {
  const periods = Math.max(1, Math.round((read.to - read.from) / periodMs));
  const counts: Record<string, number> = {};
  for (const d of read.deltas) if (pids.has(d.pid)) counts[d.key] = (counts[d.key] ?? 0) + d.n;
  for (const key in counts) counts[key] = Math.round((counts[key] / periods) * 100) / 100;
  return counts;
}
