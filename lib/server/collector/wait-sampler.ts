import "server-only";
import type { WaitSamplerInfo } from "../../schemas/target";
import { averageWaits, WaitProfileReader, type ProfileRead } from "../../model/window/wait-profile";
import { isStatementError } from "./errors";
import type { Session } from "./session";

/** pg_wait_sampling's profile is read this often: its deltas carry no time finer than the span between two reads. */
export const PROFILE_READ_MS = 1000;

/** Whether this session can take its wait events from pg_wait_sampling, and if not, why (and what to run). */
export function waitSamplingState(
  session: Session,
): { ready: true; schema: string; periodMs: number } | { ready: false; why: string | null } {
  const c = session.caps;
  const loaded = c.wait_sampling_period_ms !== null;
  if (c.wait_sampling === null && !loaded) return { ready: false, why: null };
  if (c.wait_sampling === null)
    return {
      ready: false,
      why: `pg_wait_sampling is loaded but not created in database ${c.database}: run CREATE EXTENSION pg_wait_sampling there`,
    };
  if (!loaded || c.wait_sampling_schema === null)
    return {
      ready: false,
      why: `pg_wait_sampling is created in ${c.database} but not loaded: add it to shared_preload_libraries and restart`,
    };
  const fn = `${c.wait_sampling_schema}.pg_wait_sampling_get_profile()`;
  if (!c.wait_sampling_allowed)
    return {
      ready: false,
      why: `pg_wait_sampling's profile is denied to ${c.role_name}: GRANT EXECUTE ON FUNCTION ${fn} TO ${c.role_name}; GRANT SELECT ON ${c.wait_sampling_schema}.pg_wait_sampling_profile TO ${c.role_name}`,
    };
  if (c.wait_sampling_cpu === false)
    return {
      ready: false,
      why: "pg_wait_sampling.sample_cpu is off, so its samples leave out time on CPU: ALTER SYSTEM SET pg_wait_sampling.sample_cpu = on; SELECT pg_reload_conf()",
    };
  if (c.wait_sampling_by_pid === false)
    return {
      ready: false,
      why: "pg_wait_sampling.profile_pid is off, so its profile does not say which backend waited: ALTER SYSTEM SET pg_wait_sampling.profile_pid = on; SELECT pg_reload_conf()",
    };
  return { ready: true, schema: c.wait_sampling_schema, periodMs: c.wait_sampling_period_ms ?? 10 };
}

/** What a read of the profile gave: its deltas, and the tick's waits from them (average backends in each wait). */
export interface ProfileTake {
  read: ProfileRead;
  waits: Record<string, number>;
  periodMs: number;
}

/**
 * The wait sampler where pg_wait_sampling is there: its profile read about
 * once a second (the polls of pg_stat_activity find the runs in between),
 * and what the page and /metrics say of it.
 */
export class WaitSampler {
  private readonly reader = new WaitProfileReader();
  private readAt = 0;
  /** the backends a tick counts, seen active by any poll since the last read */
  private active = new Set<number>();
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

  /** Reads the profile when due; null when not due, not in use, or the first read (the polls' waits stand). */
  async take(session: Session, now: number, describe: (err: unknown) => string): Promise<ProfileTake | null> {
    if (!this.state.ready || this.failed !== null || now - this.readAt < PROFILE_READ_MS) return null;
    const { schema, periodMs } = this.state;
    this.readAt = now;
    try {
      const [row] = await session.run("wait_profile", { extSchema: schema });
      const read = this.reader.read(row, Date.now(), periodMs);
      const active = this.active;
      this.active = new Set();
      return read ? { read, waits: averageWaits(read, active, periodMs), periodMs } : null;
    } catch (err) {
      if (!isStatementError(err)) throw err;
      // Back to the polls for this connection: the next one tries again.
      this.failed = describe(err);
      return null;
    }
  }

  info(pollMs: number): WaitSamplerInfo {
    const s = this.state;
    if (s.ready && this.failed === null)
      return {
        source: "pg_wait_sampling",
        periodMs: s.periodMs,
        readEveryMs: PROFILE_READ_MS,
        text: `wait events from pg_wait_sampling, every ${s.periodMs} ms`,
        note: null,
      };
    const why =
      this.failed !== null
        ? `pg_wait_sampling's profile could not be read (${this.failed}); back to pg_stat_activity until the next connection`
        : s.ready
          ? null
          : s.why;
    return {
      source: "pg_stat_activity",
      periodMs: pollMs,
      readEveryMs: null,
      text: `wait events from pg_stat_activity, every ${pollMs} ms`,
      note: why,
    };
  }
}
