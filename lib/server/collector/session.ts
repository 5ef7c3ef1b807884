import "server-only";
import type pg from "pg";
import type { Capabilities } from "../../schemas/target";
import type { CapabilitiesRow } from "../../schemas/rows";
import type { QueryName, RowOf } from "../pg/queries";
import { runQuery, type RunOptions } from "../pg/run";
import { isStatementError } from "./errors";

/** Past its statement_timeout, the server has ended a statement itself; this
 * much more without an answer and the network is taken to hang. */
const HANG_GRACE_MS = 500;
/** A guard timer that fires this late was held up by our own event loop, not the target. */
const LOOP_LAG_MS = 250;

export interface SessionOptions {
  statementTimeoutMs: number;
  /** every statement's name and round trip, for the cost and the stats;
   * `first`: its first call on this connection (it was parsed and planned too) */
  timed: (name: QueryName, ms: number, first: boolean) => void;
  /** no answer at all: the connection is to be dropped */
  hung: (err: Error) => void;
  /** this process's event-loop delay: the longest since a time (performance.now() ms) */
  loopLag?: { maxSince(t: number): number };
}

/**
 * An open connection to a target with what it offers. Every statement the
 * collector runs goes through `run`, which times it (what watching costs is
 * counted in one place) and guards it against a network that never answers.
 */
export class Session {
  readonly capabilities: Capabilities;
  private prepared = new Set<QueryName>();

  /** A connection just made: what the server offers and which server it is, read before anything else runs on it. */
  static async open(client: pg.Client, options: SessionOptions): Promise<Session> {
    const [caps] = await runQuery(client, "capabilities");
    return new Session(client, caps, await systemIdentifier(client, caps), options);
  }

  constructor(
    readonly client: pg.Client,
    readonly caps: CapabilitiesRow,
    /** pg_control_system().system_identifier, read on connect; null where the role may not read it */
    readonly systemId: string | null,
    private readonly options: SessionOptions,
  ) {
    this.capabilities = {
      aios: caps.aios,
      aiosDenied: caps.aios && !caps.aios_allowed,
      statIo: caps.stat_io,
      statStatements: caps.stat_statements,
      readAllStats: caps.read_all_stats,
      role: caps.role_name,
    };
  }

  /** pg_aios exists and this role may read it. */
  get canReadAios(): boolean {
    return this.caps.aios && this.caps.aios_allowed;
  }

  async run<N extends QueryName>(name: N, options: RunOptions = {}): Promise<RowOf<N>[]> {
    const disarm = this.guard(name);
    const first = !this.prepared.has(name);
    this.prepared.add(name);
    const timed = (ms: number) => {
      this.options.timed(name, ms, first);
      options.timed?.(ms);
    };
    try {
      return await runQuery(this.client, name, { ...options, timed });
    } finally {
      disarm();
    }
  }

  /**
   * The server ends a slow statement itself (statement_timeout); the guard
   * ends the connection when no answer comes back at all. It never reads
   * its own process's lag as the target's silence: a timer that fired late,
   * or one whose statement ran while the event loop was held up (measured:
   * loopLag; a large answer then sits in the socket, the target blocked on
   * sending the rest), gives the target the whole limit again, and the
   * decision waits until pending socket data has been read (setImmediate
   * runs after the poll phase).
   */
  private guard(name: QueryName): () => void {
    const limit = this.options.statementTimeoutMs + HANG_GRACE_MS;
    let armed = true;
    let timer: NodeJS.Timeout | null = null;
    const arm = (ms: number) => {
      const since = performance.now();
      const due = since + ms;
      timer = setTimeout(() => {
        const lag = performance.now() - due;
        if (!armed) return;
        if (lag > LOOP_LAG_MS || (this.options.loopLag?.maxSince(since) ?? 0) > LOOP_LAG_MS) return arm(limit);
        setImmediate(() => armed && this.options.hung(new Error(`no answer from the target to ${name}.sql within ${limit} ms`)));
      }, ms);
    };
    arm(limit);
    return () => {
      armed = false;
      if (timer) clearTimeout(timer);
    };
  }
}

/** The server's system identifier, where the role may read it; a refusal is not the session's failure (the history then goes by the address). */
async function systemIdentifier(client: pg.Client, caps: CapabilitiesRow): Promise<string | null> {
  if (!caps.control_system_allowed) return null;
  try {
    const [row] = await runQuery(client, "system_identifier");
    return row?.system_identifier ?? null;
  } catch (err) {
    if (!isStatementError(err)) throw err;
    return null;
  }
}
