import "server-only";
import type { StatementCost } from "../../schemas/target";
import type { QueryName } from "../pg/queries";

/** A statement's cost is assumed this high until it has been measured once. */
const UNMEASURED_MS = 0.2;
/** A statement's round-trip estimate is the least of its last this many calls: one held up by
 * our own event loop (or a busy CPU) is slower, never faster, than what the server took. */
const ROUND_TRIPS_KEPT = 20;
/** pg_stat_statements' figure for a statement is trusted this long after it was read. */
const CALIBRATION_TTL_MS = 60_000;
/** The baseline is the least of the last few pings: it follows a network that slows down within ~15 s. */
const PINGS_KEPT = 3;
export const RATE_SPAN_MS = 10_000;
/** A call is charged at least the least of the last this many round trips (scaled to the
 * server's share of them): the cost as measured last, when it rose since pg_stat_statements'
 * figure (up to 10 s old) was read. */
const LATEST_ROUND_TRIPS = 3;
/** The statements whose cost swings with what the target is doing (pg_aios: the handles in
 * flight), and that the budget puts off: charged from their round trips too. The others cost
 * about the same from one call to the next, and their pg_stat_statements figure is the best
 * known; on a loaded machine a run of slow round trips is mostly our own wait (measured: the
 * page said 3.8 ms/s against the server's 2.4 with every statement charged so). */
const SWINGS: ReadonlySet<QueryName> = new Set(["aios"]);

interface Entry {
  calls: number;
  /** estimated server ms, summed since inflight started */
  serverMs: number;
  /** the last calls' round trips less the baseline (first calls on a connection left out) */
  roundTrips: number[];
  /** a first call's round trip (parse and plan included), the estimate until another call is seen */
  firstRoundTrip: number | null;
  /** ms per call from inflight's own pg_stat_statements entry */
  exact: { msPerCall: number; at: number } | null;
  /** round trips since the last calibration (their sum and count), and the server's share of
   * a round trip at that calibration: pg_stat_statements' figure over their mean */
  sinceExact: { sum: number; n: number };
  serverShare: number | null;
  /** estimated ms charged to the budget since takeCharges() last ran, and the calls they were for */
  charged: Charge;
}

/** What this collector's calls of one statement were charged: their estimated server ms, and how many. */
export interface Charge {
  ms: number;
  calls: number;
}

/**
 * What watching costs the target: the server time of each statement
 * inflight runs, from its own pg_stat_statements entries where they can be
 * read, else from its round trip less that of a statement that costs the
 * server nothing (ping.sql). Every statement's cost passes through here.
 */
export class CostMeter {
  private entries = new Map<QueryName, Entry>();
  private pings: number[] = [];
  /** charges of the last 10 s: one a call, and catch-ups (calls 0) from pg_stat_statements */
  private recent: { t: number; statement: QueryName; ms: number; calls: number }[] = [];

  /** The round trip of ping.sql: the floor that is network and protocol, not server. */
  ping(rttMs: number): void {
    this.pings.push(rttMs);
    if (this.pings.length > PINGS_KEPT) this.pings.shift();
  }

  private get baseline(): number {
    return this.pings.length ? Math.min(...this.pings) : 0;
  }

  private entry(name: QueryName): Entry {
    let e = this.entries.get(name);
    if (!e) {
      e = {
        calls: 0,
        serverMs: 0,
        roundTrips: [],
        firstRoundTrip: null,
        exact: null,
        sinceExact: { sum: 0, n: 0 },
        serverShare: null,
        charged: { ms: 0, calls: 0 },
      };
      this.entries.set(name, e);
    }
    return e;
  }

  /**
   * One call of a statement, its round trip in ms. `first`: the first call
   * on a connection, which also parses and plans the prepared statement;
   * pg_stat_statements' execution time leaves that out, and so does the
   * estimate (unless nothing better is known yet). The estimate is the least
   * recent round trip less the ping's: under load, a round trip also holds
   * the wait for this process's event loop.
   */
  observe(name: QueryName, rttMs: number, now: number, first = false): number {
    const e = this.entry(name);
    const server = Math.max(0, rttMs - this.baseline);
    if (first) e.firstRoundTrip ??= server;
    else {
      e.roundTrips.push(server);
      if (e.roundTrips.length > ROUND_TRIPS_KEPT) e.roundTrips.shift();
      e.sinceExact.sum += server;
      e.sinceExact.n++;
    }
    const ms = this.latest(name, now);
    e.calls++;
    e.serverMs += ms;
    e.charged.ms += ms;
    e.charged.calls++;
    this.charge(name, ms, 1, now);
    return ms;
  }

  /**
   * What one call is charged when it is made: pg_stat_statements' figure
   * (up to 10 s old), or, for pg_aios (SWINGS), more when the last few round
   * trips say the server got busier since. A round trip is the server's time and then some (the
   * network, our event loop on a loaded machine), so it is scaled by the
   * share of it that was the server's at the last calibration. The budget
   * is held as the calls are made, not repaid once pg_stat_statements tells.
   */
  latest(name: QueryName, now: number): number {
    const estimate = this.estimate(name, now);
    const e = this.entries.get(name);
    if (!SWINGS.has(name) || !e || e.serverShare === null || this.exact(name, now) === null || e.roundTrips.length < LATEST_ROUND_TRIPS)
      return estimate;
    return Math.max(estimate, e.serverShare * Math.min(...e.roundTrips.slice(-LATEST_ROUND_TRIPS)));
  }

  /** The last call's server time as its round trip says (scaled as in latest()): a call made after a pause, when
   * pg_stat_statements' figure is of the calls before it; null before a call past the first. */
  lastCall(name: QueryName): number | null {
    const e = this.entries.get(name);
    const last = e?.roundTrips.at(-1);
    return last === undefined ? null : (e!.serverShare ?? 1) * last;
  }

  private charge(name: QueryName, ms: number, calls: number, now: number): void {
    this.recent.push({ t: now, statement: name, ms, calls });
    while (this.recent.length && this.recent[0].t < now - RATE_SPAN_MS) this.recent.shift();
  }

  /**
   * Server time the statement's calls over (from, now] took beyond what they
   * were charged (pg_stat_statements' figure against the estimates), in the
   * figures the page and /metrics show: spread over the span it was spent
   * in, as the budget enters it, so that the last 10 s on the page are those
   * 10 s, not a lump of the 10 before.
   */
  owe(name: QueryName, ms: number, now: number, from = now): void {
    if (ms <= 0) return;
    this.entry(name).serverMs += ms;
    const start = Math.max(from, now - RATE_SPAN_MS);
    if (start >= now) return this.charge(name, ms, 0, now);
    const parts = 10;
    for (let i = 1; i <= parts; i++)
      this.recent.push({ t: start + (i * (now - start)) / parts, statement: name, ms: ms / parts, calls: 0 });
  }

  /** The exact figure from inflight's own pg_stat_statements entry. */
  calibrate(name: QueryName, msPerCall: number, now: number): void {
    const e = this.entry(name);
    e.exact = { msPerCall, at: now };
    const { sum, n } = e.sinceExact;
    if (n > 0 && sum > 0) e.serverShare = Math.min(1, msPerCall / (sum / n));
    e.sinceExact = { sum: 0, n: 0 };
  }

  /**
   * What was charged to the budget, per statement, since the last call (and
   * zero from here), with the number of calls: taken just before each read of
   * pg_stat_statements, so that what the server says those calls took can be
   * set against it.
   */
  takeCharges(): Map<QueryName, Charge> {
    const charges = new Map<QueryName, Charge>();
    for (const [name, e] of this.entries) {
      if (e.charged.calls > 0) charges.set(name, e.charged);
      e.charged = { ms: 0, calls: 0 };
    }
    return charges;
  }

  /** ms per call from inflight's own pg_stat_statements entry, when recent; else null. */
  exact(name: QueryName, now: number): number | null {
    const e = this.entries.get(name)?.exact;
    return e && now - e.at < CALIBRATION_TTL_MS ? e.msPerCall : null;
  }

  /**
   * ms of server time one call costs, as best known now: pg_stat_statements' figure while
   * recent, else the round trips, scaled by the server's share of one at the last calibration
   * (a round trip on a loaded machine is mostly our own wait: unscaled, a pg_aios of 1 ms read
   * as 28 ms, was put off for it, and so was never calibrated again).
   */
  estimate(name: QueryName, now: number): number {
    const e = this.entries.get(name);
    const exact = this.exact(name, now);
    if (exact !== null) return exact;
    if (!e?.roundTrips.length) return e?.firstRoundTrip ?? UNMEASURED_MS;
    return (e.serverShare ?? 1) * Math.min(...e.roundTrips);
  }

  /** The span the figures are over: the last 10 s, less right after the start. */
  span(now: number, since: number): number {
    return Math.min(RATE_SPAN_MS, Math.max(1000, now - since));
  }

  /** Server ms per second over the last 10 s (over less right after the start); `except`: leaving these statements out. */
  msPerSecond(now: number, since: number, except?: ReadonlySet<QueryName>): number {
    const span = this.span(now, since);
    let ms = 0;
    for (const r of this.recent) if (r.t > now - span && !except?.has(r.statement)) ms += r.ms;
    return (ms / span) * 1000;
  }

  /** Estimated server seconds per statement since inflight started (for /metrics). */
  totals(): { statement: QueryName; seconds: number }[] {
    return [...this.entries].map(([statement, e]) => ({ statement, seconds: e.serverMs / 1000 }));
  }

  /** Each statement's cost over the last 10 s, costliest first. */
  statements(now: number, since: number): StatementCost[] {
    const span = this.span(now, since);
    const calls = new Map<QueryName, { n: number; ms: number }>();
    for (const r of this.recent) {
      if (r.t <= now - span) continue;
      const c = calls.get(r.statement) ?? { n: 0, ms: 0 };
      c.n += r.calls;
      c.ms += r.ms;
      calls.set(r.statement, c);
    }
    return [...calls]
      .map(([statement, c]) => {
        const exact = this.exact(statement, now) !== null;
        return {
          statement,
          msPerCall: round(this.estimate(statement, now)),
          callsPerSecond: round((c.n / span) * 1000),
          msPerSecond: round((c.ms / span) * 1000),
          source: exact ? ("pg_stat_statements" as const) : ("round trip" as const),
        };
      })
      .sort((a, b) => b.msPerSecond - a.msPerSecond);
  }
}

export const round = (n: number) => Math.round(n * 1000) / 1000;
