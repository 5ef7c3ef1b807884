import "server-only";
import type { Aspect } from "../../../schemas/enums";
import type { Feed } from "../../payloads/feed";
import type { Budget } from "../budget";
import { isStatementError } from "../errors";
import type { HealthBoard } from "../health";
import type { Pace } from "../pace";
import type { Publisher } from "../publisher";
import type { Session } from "../session";
import { RelationsStep } from "./relations";
import { SamplingStep, type SampleKind, type Sampled } from "./sampling";
import { ServerStateStep, type ServerStateAsk, type ServerStateRead } from "./server-state";
import { StatIoStep } from "./stat-io";
import { StatStatementsStep } from "./stat-statements";
import type { StepContext, StepOutcome } from "./step";

/** What the runner hands the steps' results to, and asks the budget through. */
export interface Around {
  readonly feed: Pick<Feed, "publish">;
  readonly publisher: Pick<Publisher, "target" | "settings">;
  readonly health: HealthBoard;
  readonly pace: Pace;
  readonly budget: Pick<Budget, "settle">;
}

/**
 * One target's steps, run in their order: a sample (in two halves: the
 * settings between them when the first saw a reload, then pg_aios where the
 * budget allows), then pg_stat_io, the server state, pg_stat_statements and
 * a relation's name, each when due. No step calls another or asks the
 * budget: each returns what it read, and the runner decides what runs next,
 * asks the budget (through the Pace, which alone asks it), publishes, and
 * records each aspect's health. The collector's part: it says when.
 */
export class StepRunner {
  readonly sampling: SamplingStep;
  private readonly statIo: StatIoStep;
  private readonly serverState: ServerStateStep;
  private readonly statStatements: StatStatementsStep;
  private readonly relations: RelationsStep;

  constructor(
    private readonly ctx: StepContext,
    private readonly around: Around,
  ) {
    this.sampling = new SamplingStep(ctx);
    this.statIo = new StatIoStep(ctx);
    this.serverState = new ServerStateStep(ctx);
    this.statStatements = new StatStatementsStep(ctx);
    this.relations = new RelationsStep(ctx);
  }

  /** A new session: each step forgets what was per connection, then the server state is read, before anything samples on it. */
  async connect(session: Session, now: number): Promise<void> {
    for (const step of [this.sampling, this.serverState, this.statStatements, this.relations]) step.reset(session);
    await this.readServerState(session, now, "connect");
  }

  /**
   * One sample, its tick published; null when it failed. When its first half
   * saw a reload, the settings are read before the tick is made, so that a
   * tick never carries the workers alive after a reload beside io_workers
   * before it; pg_aios is read where the budget allows.
   */
  async sample(session: Session, now: number, kind: SampleKind): Promise<Sampled | null> {
    const { sampling } = this;
    const { pace, health, feed } = this.around;
    return this.runStep(sampling, now, async () => {
      const polled = await sampling.poll(session, now);
      if (polled.reloaded) await this.readServerState(session, now, "check");
      const aios = polled.aios.kind === "wanted" ? pace.aios(polled.aios, now) : polled.aios;
      const sampled = await sampling.sample(session, now, polled, aios, kind);
      if (sampled.aios) health.record("aios", sampled.aios, now);
      feed.publish("tick", sampled.tick);
      return sampled;
    });
  }

  /** The steps after the sample, in this order, each when due: the budget stretches the cadences it may (Pace.due). */
  async afterSample(session: Session, now: number): Promise<void> {
    const { statIo, serverState, statStatements, relations } = this;
    const { pace, feed, budget } = this.around;
    if (pace.due(statIo.cadence(now), now))
      await this.runStep(statIo, now, async () => {
        const read = await statIo.run(session, now);
        if (read.kind === "read" && read.delta) feed.publish("io", read.delta);
        return read;
      });
    if (serverState.due(now, this.sampling.confLoadMs))
      await this.runStep(serverState, now, () => this.readServerState(session, now, "check"));
    if (pace.due(statStatements.cadence(), now))
      await this.runStep(statStatements, now, async () => {
        const read = await statStatements.run(session, now);
        // Where the calls were made, not now: the window the budget holds sees it; pg_aios is not stopped to repay it.
        if (read.kind === "read") budget.settle(read.owed.ms, read.owed.from, now);
        return read;
      });
    await this.runStep(relations, now, () => relations.run(session, now));
  }

  /** The server state: at connect, or a check (the settings when due, or after a reload or a restart);
   * the settings published when what they show changed, their aspect ok when they were read. */
  private async readServerState(session: Session, now: number, kind: ServerStateAsk["kind"]): Promise<ServerStateRead> {
    const { serverState } = this;
    const ask: ServerStateAsk =
      kind === "connect"
        ? { kind }
        : { kind, sampledConfLoadMs: this.sampling.confLoadMs, settingsDue: this.around.pace.due(serverState.settingsCadence, now) };
    const read = await serverState.run(session, now, ask);
    if (read.changed) this.around.publisher.settings();
    if (read.settingsRead) this.around.health.ok(serverState.aspect, now);
    return read;
  }

  /** Runs one step and records its aspect's health: its outcome, or null after a statement error,
   * which stays with its aspect; a lost connection ends the tick. */
  private async runStep<T extends StepOutcome>(step: { aspect: Aspect }, now: number, run: () => Promise<T>): Promise<T | null> {
    const { health, publisher } = this.around;
    try {
      const outcome = await run();
      if (health.record(step.aspect, outcome, now)) publisher.target();
      return outcome;
    } catch (err) {
      if (!isStatementError(err)) throw err;
      const text = this.ctx.describe(err);
      // The session still works: reconnecting would not cure the statement,
      // it would only loop. The next tick tries again at the usual cadence.
      if (health.fail(step.aspect, text, now)) publisher.target();
      this.ctx.log.once(`target ${this.ctx.target}: ${step.aspect}: ${text}`);
      return null;
    }
  }
}
