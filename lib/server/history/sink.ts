import "server-only";
import type { StatementDelta } from "../../model/compare/deltas";
import type { ServerIdentity } from "../../model/compare/identity";
import { NO_MEASURES, type MethodMeasures } from "../../model/compare/measured";
import type { Restart, Settings } from "../../schemas/settings";

/**
 * What a collector's steps hand to the history on disk, for one target:
 * the small interface in their context (the steps read nothing of their
 * own for it: the data is what they have already read). Rows go to the
 * history of the server connected to, once `server` has said which.
 */
export interface HistorySink {
  /** the address the target is reached at (host:port/database), before connecting: the page reads the history last seen there */
  address(address: string): void;
  /** the server connected to, on connect before anything else is recorded */
  server(identity: ServerIdentity): void;
  /** pg_stat_statements deltas since the step's previous read of this session, read at `t` from the server started at `epoch` */
  statements(t: number, epoch: number, deltas: readonly StatementDelta[], textOf: (queryid: string) => string | undefined): void;
  /** the settings in force, the postmaster's start time and server_version, read at `t`: a new start time is a restart.
   * Returns the restart into this start as the history knows it (also one made while inflight was not running), or null. */
  serverState(t: number, settings: Settings, postmasterStart: number, serverVersion: string): Restart | null;
  /** read back: what the history measured per statement under each io_method (the findings quote it) */
  measures(now: number): MethodMeasures;
}

/** No history (tests, or the history is off): nothing is kept. */
export const NO_HISTORY: HistorySink = {
  address: () => undefined,
  server: () => undefined,
  statements: () => undefined,
  serverState: () => null,
  measures: () => NO_MEASURES,
};
