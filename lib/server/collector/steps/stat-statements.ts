import "server-only";
import type { StatStatementsRow } from "../../../schemas/rows";
import { QUERY_NAMES, type QueryName } from "../../pg/queries";
import { intervalDeltas } from "../../../model/compare/deltas";
import {
  countersStatement,
  isOwn,
  ownCallCosts,
  ownSpent,
  ownStatement,
  statementDeltas,
  statementsNote,
} from "../../../model/window/stat-statements";
import type { Charge } from "../cost";
import { sqlState } from "../errors";
import type { Session } from "../session";
import type { Cadence, StepContext, StepOutcome } from "./step";

const BUDGET_SHARE = 0.2;
const SNAPSHOT_EVERY_MS = 10_000;
/** A session's first read is only a baseline: the second comes this soon, so that
 * inflight's own costs are known within seconds of connecting, not a cadence later. */
const SECOND_READ_MS = 2_000;
const MAX_TEXTS = 5000;
/** After pg_stat_statements failed, try again this much later: each failure is an ERROR line in the server's log. */
const RETRY_FAILED_MS = 60_000;
/** Errors that say pg_stat_statements cannot be read here; the session itself is fine. */
const UNREADABLE = new Set(["42883", "42703", "42P01", "42501", "55000", "3F000"]);

/** One read of pg_stat_statements as kept: its rows by queryid, when, and of which cluster. */
interface Read {
  rows: Map<string, StatStatementsRow>;
  at: number;
  systemId: string | null;
}

/** What one session's reads keep; a new session starts again (reset). */
interface SessionReads {
  /** pg_stat_statements' version in this database (null: not installed) */
  version: string | null;
  /** reads in this session (the first is the baseline), and when the last was */
  count: number;
  lastAt: number;
  /** a read failed with an error that says it cannot be read here: tried again RETRY_FAILED_MS later */
  failure: { message: string; at: number } | null;
  /** this session's previous read: the history keeps what happened in between, and
   * inflight's own entries in it say what each of its statements costs */
  previous: Read | null;
  /** what the budget was charged, per statement, since `previous` was read (at chargedFrom), and for how many calls */
  charged: Map<QueryName, Charge>;
  chargedFrom: number;
}

/** What inflight's own reads took beyond their charges since `from` (negative: charged beyond what
 * they took): the runner settles the budget's window with it, where the calls were made. */
export interface Owed {
  ms: number;
  from: number;
}

const newSession = (version: string | null): SessionReads => ({
  version,
  count: 0,
  lastAt: 0,
  failure: null,
  previous: null,
  charged: new Map(),
  chargedFrom: 0,
});

/**
 * pg_stat_statements deltas over the window: exact figures for statements
 * that finished, where the sampled live view can only estimate. Read every
 * 10 s with pg_stat_statements(false), its counters without the texts (which
 * can run to hundreds of MB on a busy server); a text is read once per new
 * queryid. Returns what inflight's own reads took beyond their charges, for
 * the runner to settle the budget with.
 */
export class StatStatementsStep {
  readonly aspect = "statements" as const;
  private reads = newSession(null);
  /** kept over the sessions: the window's snapshots, the texts read, and the last read of the
   * session before this one with its server start: the first read of this one takes what ran since
   * (up to a restart too: pg_stat_statements keeps its counters across a clean one) */
  private snapshots: { t: number; rows: Map<string, StatStatementsRow> }[] = [];
  private texts = new Map<string, string>();
  private carry: (Read & { epoch: number | null }) | null = null;

  constructor(private readonly ctx: Pick<StepContext, "window" | "cadences" | "cost" | "history">) {}

  reset(session: Session): void {
    const { previous, version } = this.reads;
    if (session.caps.stat_statements !== version) this.snapshots = [];
    // A new session may be a new server: its first read is a baseline, taken
    // at the first tick, so that little of the new server goes uncounted; of
    // the same cluster (record: carry), it also takes what ran since the
    // last read of this session before. A new connection tries a failed read
    // again: the extension may have been fixed.
    if (previous) this.carry = { ...previous, epoch: this.ctx.window.serverStart };
    this.reads = newSession(session.caps.stat_statements);
  }

  cadence(): Cadence {
    const { count, lastAt, version } = this.reads;
    const everyMs = this.ctx.cadences.statStatementsMs;
    if (count === 1) return { lastAt, everyMs: Math.min(SECOND_READ_MS, everyMs) };
    const statement = (version && countersStatement(version)) || "stat_statements";
    return { lastAt, everyMs, stretch: { statement, share: BUDGET_SHARE } };
  }

  async run(session: Session, now: number): Promise<StepOutcome<{ owed: Owed }>> {
    const reads = this.reads;
    reads.lastAt = now;
    reads.count++;
    const { window } = this.ctx;
    const unavailable = this.unavailable(session, now);
    if (unavailable) {
      window.setStatements([], unavailable);
      return { kind: "unavailable", why: unavailable };
    }
    const extSchema = session.caps.stat_statements_schema!;
    let rows: StatStatementsRow[];
    // What was charged up to this read, the calls it will count; a failed read leaves it to the next.
    for (const [name, c] of this.ctx.cost.takeCharges()) {
      const sum = reads.charged.get(name) ?? { ms: 0, calls: 0 };
      reads.charged.set(name, { ms: sum.ms + c.ms, calls: sum.calls + c.calls });
    }
    try {
      rows = await session.run(countersStatement(reads.version!)!, { extSchema });
      await this.loadTexts(session, rows, extSchema);
      reads.failure = null;
    } catch (err) {
      const code = sqlState(err);
      if (!code || !UNREADABLE.has(code)) throw err;
      reads.failure = { message: (err as Error).message.split("\n")[0], at: now };
      const why = this.unavailable(session, now)!;
      window.setStatements([], why);
      return { kind: "unavailable", why };
    }
    const owed = this.calibrate(rows, now);
    const latest = new Map(rows.map((r) => [r.queryid, r]));
    const last = this.snapshots.at(-1);
    if (!last || now - last.t >= SNAPSHOT_EVERY_MS) this.snapshots.push({ t: now, rows: latest });
    while (this.snapshots.length > 1 && this.snapshots[0].t < now - window.spanMs) this.snapshots.shift();
    const serverTiming = window.settings.track_io_timing?.setting === "on";
    this.record(now, rows, latest, serverTiming, session.systemId);
    window.setMeasures(this.ctx.history.measures(now));
    const stats = statementDeltas(this.snapshots[0].rows, latest, this.texts, serverTiming).filter((s) => !isOwn(s.query));
    window.setStatements(stats, statementsNote(serverTiming, stats));
    return { kind: "read", owed };
  }

  /** What ran since the previous read goes to the history (the workload's statements, not inflight's). */
  private record(
    now: number,
    rows: StatStatementsRow[],
    latest: Map<string, StatStatementsRow>,
    serverTiming: boolean,
    systemId: string | null,
  ): void {
    const previous = this.reads.previous?.rows;
    const carry = this.carry;
    this.reads.previous = { rows: latest, at: now, systemId };
    const epoch = this.ctx.window.serverStart;
    if (epoch === null) return;
    const keep = (from: Map<string, StatStatementsRow>, t: number, at: number, these: StatStatementsRow[]) => {
      const deltas = intervalDeltas(from, these, serverTiming).filter((d) => !isOwn(this.texts.get(d.queryid) ?? ""));
      this.ctx.history.statements(t, at, deltas, (id) => this.texts.get(id));
    };
    if (previous) return keep(previous, now, epoch, rows);
    this.carry = null;
    if (!carry || carry.systemId !== systemId || carry.epoch === null) return;
    // The same server (a lost connection): what ran since the last read of the session before.
    if (carry.epoch === epoch) return keep(carry.rows, now, epoch, rows);
    const split = splitCarried(carry.rows, rows, epoch);
    // Its counters started again (a crash, a reset): every count is the new server's, whole.
    if (split === null) return keep(new Map(), now, epoch, rows);
    // A clean restart in between: what the counters carried over ran before it (the calls between the last read
    // and the shutdown, which the before side would miss), and so did an entry made before the restart; the rest after it.
    keep(carry.rows, carry.at, carry.epoch, split.carried);
    keep(carry.rows, now, epoch, split.fresh);
  }

  /**
   * inflight's own statements: their server time since the last read, per
   * call, is the exact cost from here on. What they took beyond what the
   * budget was charged for them (estimates lag a server that slows down) is
   * entered in the figures the page and /metrics show, and returned for the
   * budget's window (Owed). Calls are charged at the cost as last measured
   * (CostMeter.latest), so little is owed.
   */
  private calibrate(rows: StatStatementsRow[], now: number): Owed {
    const names = new Set<string>(QUERY_NAMES);
    const nameOf = (queryid: string) => ownStatement(this.texts.get(queryid) ?? "");
    const { charged, chargedFrom: from, previous } = this.reads;
    this.reads.charged = new Map();
    this.reads.chargedFrom = now;
    let owed = 0;
    if (!previous) return { ms: owed, from };
    for (const cost of ownCallCosts(previous.rows, rows, nameOf)) {
      if (!names.has(cost.name)) continue;
      const statement = cost.name as QueryName;
      this.ctx.cost.calibrate(statement, cost.msPerCall, now);
      // Charged more than it took (a round trip is network and our own wait too): the page's
      // figures and /metrics keep the charge (a counter never goes back), the budget's window
      // gives it back, so that what is put off follows what the server spent. Only our own
      // calls' share of the entry: others may run the same statement (ownSpent).
      const mine = charged.get(statement) ?? { ms: 0, calls: 0 };
      const over = ownSpent(cost, mine.calls) - mine.ms;
      if (over > 0) this.ctx.cost.owe(statement, over, now, from);
      owed += over;
    }
    return { ms: owed, from };
  }

  private unavailable(session: Session, now: number): string | null {
    const { version, failure } = this.reads;
    if (!version || !session.caps.stat_statements_schema) {
      return "pg_stat_statements is not installed in this database: add it to shared_preload_libraries, restart, and CREATE EXTENSION pg_stat_statements.";
    }
    if (!countersStatement(version))
      return `pg_stat_statements ${version} is older than 1.8 (PostgreSQL 13): inflight does not read it. ALTER EXTENSION pg_stat_statements UPDATE;`;
    if (failure && now - failure.at < RETRY_FAILED_MS) return `pg_stat_statements ${version} cannot be read: ${failure.message}`;
    return null;
  }

  private async loadTexts(session: Session, rows: StatStatementsRow[], extSchema: string): Promise<void> {
    const missing = rows.filter((r) => !this.texts.has(r.queryid)).map((r) => r.queryid);
    if (missing.length === 0) return;
    for (const row of await session.run("stat_statements_texts", { values: [missing], extSchema })) this.texts.set(row.queryid, row.query);
    for (const id of missing) if (!this.texts.has(id)) this.texts.set(id, "");
    if (this.texts.size > MAX_TEXTS) this.texts.clear();
  }
}

/**
 * The rows of a first read after the restart at `epoch`, against the last
 * read before it: those whose counters went on from the old values (carried
 * over by pg_stat_statements.save) or whose entry was made before the
 * restart (stats_since), and those new since. Null when any entry's counters
 * went down: they were not kept (a crash, a reset), and every count is the
 * new server's.
 */
function splitCarried(
  before: ReadonlyMap<string, StatStatementsRow>,
  rows: readonly StatStatementsRow[],
  epoch: number,
): { carried: StatStatementsRow[]; fresh: StatStatementsRow[] } | null {
  const carried: StatStatementsRow[] = [];
  const fresh: StatStatementsRow[] = [];
  for (const row of rows) {
    const old = before.get(row.queryid);
    if (old && old.calls > row.calls) return null;
    const madeBefore = old !== undefined || (row.stats_since_ms != null && row.stats_since_ms < epoch);
    (madeBefore ? carried : fresh).push(row);
  }
  return { carried, fresh };
}
