import "server-only";
import type { Aspect } from "../../../schemas/enums";
import type { TargetWindow } from "../../../model/window/window";
import type { Feed } from "../../payloads/feed";
import type { HistorySink } from "../../history/sink";
import type { Budget } from "../budget";
import type { CostMeter } from "../cost";
import type { HealthBoard } from "../health";
import type { ThrottledLog } from "../log";
import type { Session } from "../session";
import type { CollectorStats } from "../stats";

/** How often the periodic steps read, ms (CollectorOptions.cadences overrides them). */
export interface Cadences {
  /** pg_settings */
  settingsMs: number;
  /** pg_stat_statements */
  statStatementsMs: number;
}
export const DEFAULT_CADENCES: Cadences = { settingsMs: 30_000, statStatementsMs: 10_000 };

/** What every collection step may use: the window it feeds, the feed it
 * publishes to, and the board it reports its health on. */
export interface StepContext {
  readonly target: string;
  readonly window: TargetWindow;
  readonly feed: Feed;
  readonly health: HealthBoard;
  readonly log: ThrottledLog;
  readonly stats: CollectorStats;
  readonly cadences: Cadences;
  readonly cost: CostMeter;
  readonly budget: Budget;
  /** the history on disk, for this target: what the steps read goes there too */
  readonly history: HistorySink;
  /** host:port/database the target is reached at (null before it is started) */
  address(): string | null;
  /** an error's first line, the target's password masked */
  describe(err: unknown): string;
}

/** What a step's run says of its aspect: read, or not offered here (and why). */
export type StepOutcome = { ok: true; note?: string } | { unavailable: string };
export const OK: StepOutcome = { ok: true };

/**
 * One collection aspect: a statement family with its own cadence and its
 * own health. A step that fails (a statement error) never skips another;
 * one whose connection is lost ends the tick.
 */
export interface Step {
  readonly aspect: Aspect;
  due(now: number, session: Session): boolean;
  run(session: Session, now: number): Promise<StepOutcome>;
  /** a new session: forget what was per connection */
  reset?(session: Session): void;
}
