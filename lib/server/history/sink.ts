import "server-only";
import type { StatementDelta } from "../../history/deltas";
import type { Restart, Settings } from "../../schemas/settings";

/**
 * What a collector's steps hand to the history on disk, for one target:
 * the small interface in their context (the steps read nothing of their
 * own for it: the data is what they have already read).
 */
export interface HistorySink {
  /** pg_stat_statements deltas since the step's previous read of this session, read at `t` from the server started at `epoch` */
  statements(t: number, epoch: number, deltas: readonly StatementDelta[], textOf: (queryid: string) => string | undefined): void;
  /** the settings in force and the postmaster's start time, read at `t`: a new start time is a restart.
   * Returns the restart into this start as the history knows it (also one made while inflight was not running), or null. */
  serverState(t: number, settings: Settings, postmasterStart: number): Restart | null;
}

/** No history (tests, or the history is off): nothing is kept. */
export const NO_HISTORY: HistorySink = {
  statements: () => undefined,
  serverState: () => null,
};
