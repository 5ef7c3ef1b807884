import "server-only";
import type { WaitSamplerInfo } from "../../schemas/target";
import { averageWaits, WaitHistoryReader, type RingWrap, type WaitSample } from "../../window/wait-history";
import { isStatementError } from "./errors";
import type { Session } from "./session";

/** pg_wait_sampling's history is read this often: each read copies its whole ring. */
export const HISTORY_READ_MS = 1000;
/** A wrap is said this long after it was seen. */
const WRAP_SAID_MS = 60_000;

/** Whether this session can take its wait events from pg_wait_sampling, and if not, why (and what to run). */
export function waitSamplingState(session: Session): { ready: true; schema: string; periodMs: number; historySize: number } | { ready: false; why: string | null } {
  const c = session.caps;
  const loaded = c.wait_sampling_history_size !== null;
  if (c.wait_sampling === null && !loaded) return { ready: false, why: null };
  if (c.wait_sampling === null) return { ready: false, why: `pg_wait_sampling is loaded but not created in database ${c.database}: run CREATE EXTENSION pg_wait_sampling there` };
  if (!loaded || c.wait_sampling_schema === null) return { ready: false, why: `pg_wait_sampling is created in ${c.database} but not loaded: add it to shared_preload_libraries and restart` };
  const fn = `${c.wait_sampling_schema}.pg_wait_sampling_get_history()`;
  if (!c.wait_sampling_allowed) return { ready: false, why: `pg_wait_sampling's history is denied to ${c.role_name}: GRANT EXECUTE ON FUNCTION ${fn} TO ${c.role_name}; GRANT SELECT ON ${c.wait_sampling_schema}.pg_wait_sampling_history TO ${c.role_name}` };
  if (c.wait_sampling_cpu === false) return { ready: false, why: "pg_wait_sampling.sample_cpu is off, so its samples leave out time on CPU: ALTER SYSTEM SET pg_wait_sampling.sample_cpu = on; SELECT pg_reload_conf()" };
  return { ready: true, schema: c.wait_sampling_schema, periodMs: c.wait_sampling_period_ms ?? 10, historySize: c.wait_sampling_history_size ?? 5000 };
}

/** What a read of the history gave: its samples, and the tick's waits from them (average backends in each wait). */
export interface HistoryTake {
  samples: WaitSample[];
  waits: Record<string, number> | null;
  periodMs: number;
}

/**
 * The wait sampler where pg_wait_sampling is there: its history read about
 * once a second (the rest of the time the polls of pg_stat_activity only
 * find the runs), and what the page and /metrics say of it.
 */
export class WaitSampler {
  private readonly reader = new WaitHistoryReader();
  private readAt = 0;
  /** the backends a tick counts, seen active by any poll since the last read */
  private active = new Set<number>();
  private wrapSeen: { at: number; wrap: RingWrap } | null = null;
  private failed: string | null = null;
  private state: ReturnType<typeof waitSamplingState> = { ready: false, why: null };

  reset(session: Session): void {
    this.reader.reset();
    this.readAt = 0;
    this.active.clear();
    this.failed = null;
    this.state = waitSamplingState(session);
  }

  get ready(): boolean {
    return this.state.ready && this.failed === null;
  }

  /** The pids a poll saw active (clients and their parallel workers): their samples make the ticks' waits. */
  noteActive(pids: Iterable<number>): void {
    for (const pid of pids) this.active.add(pid);
  }

  /** Reads the history when due; null when not due or not in use (the polls' waits stand). */
  async take(session: Session, now: number, describe: (err: unknown) => string): Promise<HistoryTake | null> {
    if (!this.state.ready || this.failed !== null || now - this.readAt < HISTORY_READ_MS) return null;
    const { schema, historySize, periodMs } = this.state;
    this.readAt = now;
    try {
      const cursor = this.reader.cursor;
      const [row] = await session.run("wait_history", { values: [cursor], extSchema: schema });
      const read = this.reader.read(row, Date.now(), historySize);
      if (read.wrap) this.wrapSeen = { at: now, wrap: read.wrap };
      const waits = cursor === null ? null : averageWaits(read.samples, this.active, read.spanMs, periodMs);
      this.active.clear();
      return { samples: read.samples, waits, periodMs };
    } catch (err) {
      if (!isStatementError(err)) throw err;
      // Back to the polls for this connection: the next one tries again.
      this.failed = describe(err);
      return null;
    }
  }

  info(now: number, pollMs: number): WaitSamplerInfo {
    const s = this.state;
    if (s.ready && this.failed === null) {
      const w = this.wrapSeen && now - this.wrapSeen.at < WRAP_SAID_MS ? this.wrapSeen.wrap : null;
      const note = w ? `pg_wait_sampling's history ring wrapped between two reads ${Math.round((now - this.wrapSeen!.at) / 1000)} s ago: ${w.lostMs} ms of samples lost (${w.rowsPerSecond} rows a second here); pg_wait_sampling.history_size = ${w.holdsASecond} holds a second` : null;
      return { source: "pg_wait_sampling", periodMs: s.periodMs, readEveryMs: HISTORY_READ_MS, text: `wait events from pg_wait_sampling, every ${s.periodMs} ms`, note };
    }
    const why = this.failed !== null ? `pg_wait_sampling's history could not be read (${this.failed}); back to pg_stat_activity until the next connection` : s.ready ? null : s.why;
    return { source: "pg_stat_activity", periodMs: pollMs, readEveryMs: null, text: `wait events from pg_stat_activity, every ${pollMs} ms`, note: why };
  }
}
