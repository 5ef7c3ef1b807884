import "server-only";
import type { TargetWindow } from "../../../model/window/window";
import type { HistorySink } from "../../history/sink";
import type { QueryName } from "../../pg/queries";
import type { CostMeter } from "../cost";
import type { ThrottledLog } from "../log";

/** How often the periodic steps read, ms (CollectorOptions.cadences overrides them). */
export interface Cadences {
  /** pg_settings */
  settingsMs: number;
  /** pg_stat_statements */
  statStatementsMs: number;
  /** pg_wait_sampling's profile, tried again after it was found dearer than the polls (wait-sampler.ts): a reset,
   * or fewer backends, makes it cheap again */
  profileRetryMs: number;
}
export const DEFAULT_CADENCES: Cadences = { settingsMs: 30_000, statStatementsMs: 10_000, profileRetryMs: 300_000 };

/** What a collector offers its steps; each takes the few it uses (a Pick of it). The steps
 * neither publish nor ask the budget: they return what they read, and the runner (runner.ts) does. */
export interface StepContext {
  readonly target: string;
  /** the model of the target: what the steps read goes there */
  readonly window: TargetWindow;
  readonly log: ThrottledLog;
  readonly cadences: Cadences;
  readonly cost: CostMeter;
  /** the history on disk, for this target: what the steps read goes there too */
  readonly history: HistorySink;
  /** host:port/database the target is reached at (null before it is started) */
  address(): string | null;
  /** an error's first line, the target's password masked */
  describe(err: unknown): string;
}

/** What a step's run says of its aspect: read (with what it returns), or not offered here (and why).
 * A statement error is thrown: the runner records it against the aspect. */
export type StepOutcome<Read extends object = object> = ({ kind: "read" } & Read) | { kind: "unavailable"; why: string };
export const READ = { kind: "read" } as const;

/**
 * When a periodic step reads next: `everyMs` after `lastAt`, where the
 * budget may stretch it (Pace.due) so that `statement`, at its exact cost,
 * takes at most `share` of the budget; without `stretch`, never stretched.
 */
export interface Cadence {
  lastAt: number;
  everyMs: number;
  stretch?: { statement: QueryName; share: number };
}
