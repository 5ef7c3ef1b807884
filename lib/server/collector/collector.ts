import "server-only";
import type pg from "pg";
import type { Capabilities, TargetInfo, TargetStatus } from "../../schemas/target";
import { TargetWindow } from "../../model/window/window";
import { Feed } from "../payloads/feed";
import { NO_HISTORY } from "../history/sink";
import { serverAddress } from "../../model/compare/identity";
import { Recording } from "../history/recording";
import type { PayloadSource } from "../payloads/source";
import { Connection } from "./connection";
import { HealthBoard } from "./health";
import { ThrottledLog } from "./log";
import { Publisher } from "./publisher";
import { Schedule } from "./schedule";
import { Session } from "./session";
import { Budget } from "./budget";
import { Pace } from "./pace";
import { CostMeter } from "./cost";
import { watchCost } from "./watch-cost";
import { CollectorStats } from "./stats";
import { StepRunner } from "./steps/runner";
import { BURST_SAMPLES, DEFAULT_BUDGET_MS, watchedMs, type CollectorOptions } from "./options";
import { DEFAULT_CADENCES } from "./steps/step";

export { DEFAULT_BUDGET_MS, type CollectorOptions } from "./options";
/**
 * Watches one target: a connection (connect, retry, port watch), a schedule
 * (the cadence, one tick at a time, and a burst of samples when a statement
 * starts) and one step per collection aspect, run by its StepRunner: the
 * steps read into the window and return what they read; the runner
 * publishes it and asks the budget (Pace). At most one statement is in
 * flight on the connection.
 */
export class Collector implements PayloadSource {
  readonly window: TargetWindow;
  readonly feed = new Feed();
  readonly stats = new CollectorStats();
  readonly health: HealthBoard;
  readonly cost = new CostMeter();
  readonly budget: Budget;
  readonly pace: Pace;
  private readonly startedAt = Date.now();
  private readonly connection: Connection;
  private readonly schedule: Schedule;
  private readonly log: ThrottledLog;
  private readonly steps: StepRunner;
  private readonly publisher: Publisher;
  /** the history on disk; null when none is kept */
  private readonly recording: Recording | null;
  private session: Session | null = null;
  private capabilities: Capabilities | null = null;
  private serverVersion: { text: string; num: number } | null = null;
  private status: TargetStatus = "starting";
  private statusSince = Date.now();
  private lastError: string | null = null;
  private address: string | null = null;

  constructor(readonly options: CollectorOptions) {
    this.window = new TargetWindow(options.windowMs);
    this.budget = new Budget(options.budgetMsPerSecond ?? DEFAULT_BUDGET_MS, Date.now());
    this.health = new HealthBoard(Date.now());
    this.pace = new Pace(this.budget, this.cost, this.stats, () => (this.status === "up" ? this.statusSince : null), this.startedAt);
    this.log = new ThrottledLog((line) => options.log?.(line));
    this.connection = new Connection({
      statementTimeoutMs: this.statementTimeoutMs,
      events: { open: (client) => this.open(client), up: () => this.up(), down: (error, wasUp) => this.down(error, wasUp) },
    });
    this.schedule = new Schedule(
      () => this.intervalMs,
      (now) => this.tick(now),
      (n) => this.stats.miss(n),
    );
    this.publisher = new Publisher(this);
    this.steps = new StepRunner(
      {
        target: options.name,
        window: this.window,
        log: this.log,
        cadences: { ...DEFAULT_CADENCES, ...options.cadences },
        cost: this.cost,
        history: options.history ?? NO_HISTORY,
        describe: (err) => this.connection.describe(err),
        address: () => this.address,
      },
      { feed: this.feed, publisher: this.publisher, health: this.health, pace: this.pace, budget: this.budget },
    );
    this.recording = options.samples ? new Recording(options.samples, this.window, this.redact) : null;
    this.feed.onViewersChange = () => {
      this.schedule.reset();
      this.publisher.everything(Date.now());
    };
    this.publisher.everything(Date.now());
  }

  waitSampler = () => this.steps.sampling.waits.info(this.intervalMs);

  get id(): string {
    return this.options.id;
  }

  get redact(): boolean {
    return this.options.redact ?? false;
  }

  private get statementTimeoutMs(): number {
    return this.options.statementTimeoutMs ?? 1000;
  }

  /** The interval asked for: fast while someone watches (slower where pg_wait_sampling gives the waits), slow otherwise. */
  private get askedMs(): number {
    return this.feed.viewers > 0 ? watchedMs(this.options.watchedSampleMs, this.steps.sampling.waits.ready) : this.options.idleSampleMs;
  }

  /** The interval in force: the one asked for, stretched where the budget says (Pace). */
  get intervalMs(): number {
    return this.pace.intervalMs(this.askedMs, Date.now());
  }

  /** `address`: what tells its server apart in the history (default host:port/database of the URL). */
  start(url: string, address: string | null = serverAddress(url)): void {
    this.address = address;
    if (this.address) (this.options.history ?? NO_HISTORY).address(this.address);
    this.connection.start(url);
    this.schedule.start();
  }

  /** The target is known but not reachable yet (the demo server is starting). */
  setStarting(message: string): void {
    this.lastError = message;
    this.publisher.target();
  }

  setFailed(message: string): void {
    this.setStatus("down", message);
  }

  async stop(): Promise<void> {
    this.schedule.stop();
    this.session = null;
    this.recording?.finish(Date.now());
    await this.connection.stop();
  }

  info(): TargetInfo {
    const now = Date.now();
    return {
      id: this.options.id,
      name: this.options.name,
      status: this.status,
      statusSince: this.statusSince,
      lastError: this.lastError,
      serverVersion: this.serverVersion?.text ?? null,
      serverVersionNum: this.serverVersion?.num ?? null,
      ioMethod: this.window.settings.io_method?.setting ?? null,
      demo: this.options.demo,
      sampleMs: this.intervalMs,
      achievedHz: this.stats.achievedHz(now),
      samples: this.stats.samples,
      missed: this.stats.missed,
      postmasterStart: this.window.serverStart,
      capabilities: this.capabilities,
      windowMs: this.options.windowMs,
      viewers: this.feed.viewers,
      aspects: this.health.list(),
      waitSampler: this.waitSampler(),
      cost: watchCost({
        now,
        since: this.startedAt,
        cost: this.cost,
        budget: this.budget,
        asked: this.askedMs,
        interval: this.intervalMs,
        aios: this.steps.sampling.aiosCadence(now),
        aiosRead: this.stats.statements.has("aios"),
        samplingShare: this.pace.samplingShare(now),
        othersMsPerSecond: this.pace.othersMsPerSecond(now),
      }),
      ...(this.recording ? { history: this.recording.status() } : {}),
    };
  }

  /** A new session: what the server offers, then its settings and start time,
   * before anything samples on it (a sample would use the old settings). */
  private async open(client: pg.Client): Promise<void> {
    const session = await Session.open(client, {
      statementTimeoutMs: this.statementTimeoutMs,
      timed: (name, ms, first) => {
        const now = Date.now();
        this.stats.statement(name, ms);
        if (name === "activity") this.stats.sampleDuration(ms / 1000);
        // Charged as it is made, at the cost as last measured (cost.ts).
        this.budget.spend(this.cost.observe(name, ms, now, first), now);
      },
      hung: (err) => this.connection.lose(client, err),
      loopLag: this.options.loopLag,
    });
    this.capabilities = session.capabilities;
    this.serverVersion = { text: session.caps.server_version, num: session.caps.server_version_num };
    this.health.waiting(Date.now());
    await this.steps.connect(session, Date.now());
    this.session = session;
  }

  private up(): void {
    this.setStatus("up", null);
    this.window.markUp(Date.now());
  }

  private down(error: string, wasUp: boolean): void {
    this.session = null;
    if (wasUp) this.window.markDown(Date.now(), error);
    this.setStatus("down", error);
  }

  private setStatus(status: TargetStatus, error: string | null): void {
    if (status !== this.status) {
      this.status = status;
      this.statusSince = Date.now();
      if (status === "down" && error) this.log.once(`target ${this.options.name} is down: ${error}`);
      if (status === "up") this.log.once(`target ${this.options.name} is up (${this.serverVersion?.text ?? "?"})`);
    }
    this.lastError = error;
    this.publisher.target();
    this.publisher.findings(Date.now());
  }

  /** A sample, then every step that is due; false when no sample was taken (a miss). */
  private async tick(now: number): Promise<boolean> {
    const session = this.session;
    if (!session) return false;
    try {
      const sampled = await this.steps.sample(session, now, "slot");
      if (sampled) this.stats.sampled(now);
      // From the sample that saw the statement start, not after the steps below: a scan of
      // 100 ms is often over by the time a whole tick (pg_stat_io, the statements) has ended.
      if (sampled?.newRun) this.burst(session, BURST_SAMPLES, Math.round(this.intervalMs / (2 * (BURST_SAMPLES + 1))));
      await this.steps.afterSample(session, now);
      this.publisher.afterTick(now);
      // The checks follow every sample (async reads seen, io workers alive), as the runs and charts do,
      // and the findings of this moment (just refreshed above): a check never passes what a finding acts on.
      if (sampled && this.window.refreshChecks(now, session.capabilities)) this.publisher.settings();
      this.recording?.afterTick(now);
      return sampled !== null;
    } catch (err) {
      // The connection is gone (or no longer trusted): reconnect.
      if (this.session === session) this.connection.lose(session.client, err);
      return false;
    }
  }

  /**
   * A statement just started: a few extra samples between the slots, while
   * the budget holds them, so a scan of a few hundred ms is seen with its
   * reads in flight more than once. The first comes `firstMs` after the
   * sample that saw it start (an eighth of the interval), the others a
   * quarter apart, so that the last is not taken just before the next
   * slot. Only the sample itself runs, and only until the new run has the
   * async samples a verdict needs (on a small server most of a burst's
   * cost, when the slot already saw the reads).
   */
  private burst(session: Session, left: number, firstMs?: number): void {
    if (left <= 0 || !this.steps.sampling.awaitingReads || this.feed.viewers === 0 || !this.pace.affordsSamples(left, Date.now())) return;
    this.schedule.extra(Math.max(10, firstMs ?? Math.round(this.intervalMs / (BURST_SAMPLES + 1))), async (t) => {
      if (this.session !== session) return;
      try {
        if (await this.steps.sample(session, t, "extra")) this.stats.extraSamples++;
        this.burst(session, left - 1);
      } catch (err) {
        if (this.session === session) this.connection.lose(session.client, err);
      }
    });
  }
}
