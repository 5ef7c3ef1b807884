import "server-only";
import type { WaitSamplerInfo } from "../../schemas/target";
import { averageWaits, WaitProfileReader, type ProfileRead } from "../../model/window/wait-profile";
import { formatDuration } from "../../format";
import type { CostMeter } from "./cost";
import { isStatementError } from "./errors";
import { DEFAULT_WATCHED_SAMPLE_MS, WAIT_SAMPLING_WATCHED_MS } from "./options";
import type { Session } from "./session";

/** pg_wait_sampling's profile is read this often: its deltas carry no time finer than the span between two reads. */
export const PROFILE_READ_MS = 1000;
/** Polls of pg_stat_activity a second the profile spares at the shipped cadences (ten a second without it, four with it). */
export const POLLS_SPARED = 1000 / DEFAULT_WATCHED_SAMPLE_MS - 1000 / WAIT_SAMPLING_WATCHED_MS;
/** Reads in a row that cost more than the polls they spare before the polls take over: one slow read is not the profile's size. */
export const DEAR_READS = 3;
/**
 * How many times the spared polls' pg_stat_activity reads a profile read may cost before it is too dear. Those
 * polls also read pg_aios while backends read, which this leaves out: figure 12's 1000 x 64 target read a profile
 * of 47 entries at 0.93 ms, above the spared polls' activity reads, the whole mix still the cheaper (3.69 against
 * 4.49 ms/s). A profile grown by ended backends costs 5-100 times that.
 */
export const DEAR_FACTOR = 2;
/**
 * Below this many entries a read's cost is not the profile's size but the wait for pg_wait_sampling's worker to
 * answer (pg_stat_statements times it as the caller's): figure 12 read profiles of 36-61 entries at 0.3 ms bare
 * and 1.8-2.1 ms from a collector polling at 10/s beside two others on 2 busy cores. At 2 µs an entry (Debian's
 * 1.1.11) 1,000 entries are 2 ms of copying.
 */
export const DEAR_ENTRIES = 1000;

/**
 * What reading the profile costs against the polls it spares, a second of each.
 * pg_wait_sampling 1.1 keeps an entry per pid, event and query until the profile is reset,
 * the ended backends' too, and a read copies every one: measured on Debian's 1.1.11, 0.4 ms
 * a read at 11 entries, 4.5 at 2,243 (after 1,000 short sessions), 92 at 45,177 (20,000).
 */
export function profileWeighed(
  profileMs: number,
  activityMs: number,
  entries: number,
): { profileMsPerSecond: number; sparedMsPerSecond: number; dear: boolean } {
  const profileMsPerSecond = (profileMs * 1000) / PROFILE_READ_MS;
  const sparedMsPerSecond = activityMs * POLLS_SPARED;
  return {
    profileMsPerSecond,
    sparedMsPerSecond,
    dear: entries >= DEAR_ENTRIES && profileMsPerSecond > DEAR_FACTOR * sparedMsPerSecond,
  };
}

/** The profile found dearer than the polls: when, and the figures said. */
interface Dear {
  at: number;
  entries: number;
  profileMs: number;
  sparedMs: number;
}

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
  /** reads in a row dearer than the polls they spare */
  private dearReads = 0;
  private dear: Dear | null = null;

  /** `cost`: this target's statements' server time, the profile's and the polls' among them; `retryMs`: how long
   * after a profile found too dear it is read again (Cadences.profileRetryMs). */
  constructor(
    private readonly cost: Pick<CostMeter, "exact" | "lastCall">,
    private readonly retryMs: number,
  ) {}

  reset(session: Session): void {
    this.reader.reset();
    this.readAt = 0;
    this.active.clear();
    this.failed = null;
    this.dearReads = 0;
    this.dear = null;
    this.state = waitSamplingState(session);
  }

  get ready(): boolean {
    return this.state.ready && this.failed === null && this.dear === null;
  }

  /** The pids a poll saw active (clients and their parallel workers): their samples make the ticks' waits. */
  noteActive(pids: Iterable<number>): void {
    for (const pid of pids) this.active.add(pid);
  }

  /** Reads the profile when due; null when not due, not in use, or the first read (the polls' waits stand). */
  async take(session: Session, now: number, describe: (err: unknown) => string): Promise<ProfileTake | null> {
    if (!this.state.ready || this.failed !== null || now - this.readAt < PROFILE_READ_MS) return null;
    if (this.dear && now - this.dear.at < this.retryMs) return null;
    const { schema, periodMs } = this.state;
    this.readAt = now;
    try {
      const [row] = await session.run("wait_profile", { extSchema: schema });
      if (this.weigh(now, row.entries)) {
        // The polls' waits stand; the next read after the retry starts the deltas anew.
        this.reader.reset();
        this.active = new Set();
        return null;
      }
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

  /**
   * After a read: whether the profile is now too dear, by the server's own figures (pg_stat_statements, this
   * role's calls of the last 10 s): DEAR_READS in a row over, or the one read of a retry over. Before both
   * statements are calibrated nothing is decided: a round trip on a busy machine is mostly our own wait (figure
   * 12's small target read a profile of 66 entries as 1.0 ms from its round trips, 0.3 from the server's).
   * A retry's read is weighed by its own round trip (scaled to the server's share of one at the last
   * calibration): pg_stat_statements' figure is still that of the dear reads before the pause.
   */
  private weigh(now: number, entries: number): boolean {
    const retrying = this.dear !== null;
    const profileMs = retrying ? this.cost.lastCall("wait_profile") : this.cost.exact("wait_profile", now);
    const activityMs = this.cost.exact("activity", now);
    if (profileMs === null || activityMs === null) {
      if (retrying) this.dear = { ...this.dear!, at: now, entries };
      return retrying;
    }
    const w = profileWeighed(profileMs, activityMs, entries);
    this.dearReads = w.dear ? this.dearReads + 1 : 0;
    if (w.dear && (retrying || this.dearReads >= DEAR_READS)) {
      this.dear = { at: now, entries, profileMs, sparedMs: w.sparedMsPerSecond };
      return true;
    }
    this.dear = null;
    return false;
  }

  info(pollMs: number): WaitSamplerInfo {
    const s = this.state;
    if (s.ready && this.failed === null && this.dear !== null) {
      const d = this.dear;
      return {
        source: "pg_stat_activity",
        periodMs: pollMs,
        readEveryMs: null,
        text: `wait events from pg_stat_activity, every ${pollMs} ms`,
        note:
          `pg_wait_sampling's profile holds ${d.entries.toLocaleString("en-US")} entries (one per backend, wait event and query since its last reset, ended backends' included), ` +
          `and reading it once a second costs ${formatDuration(d.profileMs)} of server time a read, more than twice the ${POLLS_SPARED} polls of pg_stat_activity a second it spares (${formatDuration(d.sparedMs)}): ` +
          `back to pg_stat_activity, the profile tried again every ${formatDuration(this.retryMs)}. ` +
          `SELECT ${s.schema}.pg_wait_sampling_reset_profile() empties it (for every reader of it)`,
      };
    }
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
