import "server-only";
import net from "node:net";
import pg from "pg";
import type { Capabilities, StreamPayload, TargetInfo, TargetStatus } from "../schemas/window";
import { computeChecks } from "../window/checks";
import { ActivityRow, CapabilitiesRow, ServerInfoRow, SettingRow, StatIoRow } from "../window/rows";
import { IO_SETTINGS, toSettings } from "../window/settings";
import { TargetWindow } from "../window/window";
import { Hub } from "./hub";
import { RelationCache } from "./relations";
import { RowShapeError, runStatement } from "./statements";
import { StatementsTracker } from "./pgss";
import { observeSampleDuration } from "../metrics";

export interface CollectorOptions {
  id: string;
  name: string;
  demo: boolean;
  /** fast cadence while someone watches */
  sampleMs: number;
  /** cadence while nobody watches */
  idleSampleMs: number;
  windowMs: number;
  /** client-side limit on one statement; the server's statement_timeout matches */
  statementTimeoutMs?: number;
  log?: (line: string) => void;
}

const IO_EVERY_MS = 1000;
const SETTINGS_EVERY_MS = 5000;
const STATEMENTS_EVERY_MS = 2000;
const PUBLISH_EVERY_MS = 1000;
/** While reads are in flight a scan's progress moves faster than once a second. */
const PUBLISH_BUSY_MS = 500;
/** Ended runs a queries event carries; the /window snapshot has them all. */
const STREAMED_ENDED_RUNS = 100;

/** Delays between connection attempts, then the cap (5 s) for a target that stays down. */
export const RETRY_MS = [100, 250, 500, 1000, 1000, 1000, 2000, 3000, 5000] as const;
/** While the server says it is starting up or shutting down (57P03): it answers again soon. */
const STARTING_RETRY_MS = 250;
const STARTING_RETRIES = 40;
/** While the port refuses connections, how often to look whether it listens again. */
export const PORT_WATCH_MS = 250;
/** The same log line again only after this long: a flapping target does not flood the log. */
const LOG_REPEAT_MS = 60_000;

export function retryDelay(attempt: number): number {
  return RETRY_MS[Math.min(Math.max(0, attempt), RETRY_MS.length - 1)];
}

/** Host and port of a TCP target, for the port watch; null for a Unix socket or several hosts. */
export function tcpEndpoint(url: string): { host: string; port: number } | null {
  try {
    const u = new URL(url);
    const host = u.hostname.replace(/^\[|\]$/g, "");
    if (!host || host.includes(",") || u.searchParams.has("host")) return null;
    return { host, port: u.port ? Number(u.port) : 5432 };
  } catch {
    return null;
  }
}

/**
 * An error the statement raised while the session goes on working (a
 * timeout, a permission, rows of an unexpected shape), as opposed to a lost
 * connection (FATAL, class 08 / 57P, a socket error).
 */
export function isStatementError(err: unknown): boolean {
  if (err instanceof RowShapeError) return true;
  const e = err as { severity?: string; code?: string };
  return e?.severity === "ERROR" && typeof e.code === "string" && !/^(08|57P)/.test(e.code);
}

/** Nothing listens on the target's port: a cheap probe shows when it does again. */
function isRefused(err: unknown): boolean {
  return (err as { code?: string })?.code === "ECONNREFUSED";
}

function errorText(err: unknown, secret: string | null): string {
  const e = err as { message?: string; code?: string };
  let text = (e?.message || e?.code || String(err)).split("\n")[0].slice(0, 300);
  if (secret) text = text.split(secret).join("***");
  return text;
}

function passwordOf(url: string): string | null {
  try {
    const p = new URL(url).password;
    return p ? decodeURIComponent(p) : null;
  } catch {
    return null;
  }
}

/**
 * Samples one target on one persistent connection. At most one statement is
 * in flight: a tick due while one runs is skipped and counted as missed.
 */
export class Collector {
  readonly window: TargetWindow;
  readonly hub = new Hub();
  private url: string | null = null;
  private client: pg.Client | null = null;
  private status: TargetStatus = "starting";
  private statusSince = Date.now();
  private lastError: string | null = null;
  private capabilities: Capabilities | null = null;
  private caps: CapabilitiesRow | null = null;
  private serverVersion: string | null = null;
  private serverVersionNum: number | null = null;
  private busy = false;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private watchTimer: NodeJS.Timeout | null = null;
  private startingRetries = 0;
  private nextDue = 0;
  private lastIoAt = 0;
  private lastSettingsAt = 0;
  private lastStatementsAt = 0;
  private lastPublishAt = 0;
  private lastQueriesAt = 0;
  private retry = 0;
  private connecting = false;
  private recentSamples: number[] = [];
  private logged = new Map<string, { at: number; repeats: number }>();
  private readonly relations: RelationCache;
  private readonly pgss: StatementsTracker;
  samples = 0;
  missed = 0;
  private asyncSeenAt = 0;
  private readsSeenAt = 0;
  /** checks wait for the first tick of a new connection (io workers alive) */
  private checksAfterTick = false;

  constructor(readonly options: CollectorOptions) {
    this.relations = new RelationCache();
    this.window = new TargetWindow(options.windowMs, (db, node) => this.relations.get(db, node));
    this.pgss = new StatementsTracker(options.windowMs);
    this.hub.onViewersChange = () => this.reschedule();
  }

  get id(): string {
    return this.options.id;
  }

  /** The interval in force: fast while someone watches, slow otherwise. */
  get intervalMs(): number {
    return this.hub.viewers > 0 ? this.options.sampleMs : this.options.idleSampleMs;
  }

  start(url: string): void {
    this.url = url;
    this.stopped = false;
    this.connect();
    this.nextDue = Date.now();
    this.schedule();
  }

  /** The target is known but not reachable yet (the demo server is starting). */
  setStarting(message: string): void {
    this.lastError = message;
    this.publishTarget();
  }

  setFailed(message: string): void {
    this.setStatus("down", message);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.timer = this.reconnectTimer = this.watchTimer = null;
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }

  info(): TargetInfo {
    const now = Date.now();
    const recent = this.recentSamples.filter((t) => t > now - 10_000);
    const span = Math.min(10_000, Math.max(1000, now - (this.recentSamples[0] ?? now)));
    return {
      id: this.options.id,
      name: this.options.name,
      status: this.status,
      statusSince: this.statusSince,
      lastError: this.lastError,
      serverVersion: this.serverVersion,
      serverVersionNum: this.serverVersionNum,
      ioMethod: this.window.settings.io_method?.setting ?? null,
      demo: this.options.demo,
      sampleMs: this.intervalMs,
      achievedHz: Math.round((recent.length / span) * 10_000) / 10,
      samples: this.samples,
      missed: this.missed,
      postmasterStart: this.window.serverStart,
      capabilities: this.capabilities,
      windowMs: this.options.windowMs,
      viewers: this.hub.viewers,
    };
  }

  // ---- connection ----------------------------------------------------------

  private connect(): void {
    if (this.stopped || this.connecting || !this.url) return;
    this.connecting = true;
    void this.openConnection()
      .then(() => {
        this.retry = 0;
        this.startingRetries = 0;
        this.setStatus("up", null);
        this.window.markUp(Date.now());
      })
      .catch((err) => {
        this.dropClient();
        this.setStatus("down", errorText(err, passwordOf(this.url ?? "")));
        this.retryLater(err);
      })
      .finally(() => {
        this.connecting = false;
      });
  }

  /**
   * Backs off between attempts (capped at 5 s), except while the server is
   * starting up or shutting down. While the port refuses connections, a TCP
   * probe every 250 ms starts the next attempt as soon as it listens again.
   */
  private retryLater(err: unknown): void {
    if (this.stopped) return;
    const starting = (err as { code?: string })?.code === "57P03" && this.startingRetries++ < STARTING_RETRIES;
    const delay = starting ? STARTING_RETRY_MS : retryDelay(this.retry++);
    this.reconnectTimer = setTimeout(() => this.retryNow(), delay);
    if (isRefused(err)) this.watchPort();
  }

  private retryNow(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.reconnectTimer = this.watchTimer = null;
    this.connect();
  }

  private watchPort(): void {
    const endpoint = tcpEndpoint(this.url ?? "");
    if (!endpoint) return;
    // The watch belongs to this wait: it ends when the wait does.
    const wait = this.reconnectTimer;
    const waiting = () => !this.stopped && wait !== null && this.reconnectTimer === wait;
    const probe = () => {
      if (!waiting()) return;
      const socket = net.connect(endpoint);
      socket.setTimeout(PORT_WATCH_MS * 2);
      let settled = false;
      const settle = (listening: boolean) => {
        if (settled) return;
        settled = true;
        socket.destroy();
        if (!waiting()) return;
        if (listening) this.retryNow();
        else this.watchTimer = setTimeout(probe, PORT_WATCH_MS);
      };
      socket.once("connect", () => settle(true));
      socket.once("error", () => settle(false));
      socket.once("timeout", () => settle(false));
    };
    this.watchTimer = setTimeout(probe, PORT_WATCH_MS);
  }

  private async openConnection(): Promise<void> {
    const timeout = this.options.statementTimeoutMs ?? 1000;
    const client = new pg.Client({
      connectionString: this.url!,
      application_name: "inflight",
      statement_timeout: timeout,
      lock_timeout: Math.min(500, timeout),
      idle_in_transaction_session_timeout: 5000,
      connectionTimeoutMillis: 3000,
      options: "-c default_transaction_read_only=on",
    });
    // An error after connect (server gone, session killed) arrives here and
    // on the statement in flight; the sampling loop handles it there.
    client.on("error", (err) => this.lost(client, err));
    client.on("end", () => this.lost(client, new Error("connection closed")));
    // connectionTimeoutMillis covers the handshake; this covers the first
    // statements too (a network that hangs after the handshake).
    const deadline = setTimeout(() => void client.end().catch(() => undefined), 3000 + 4 * (timeout + 500));
    try {
      await client.connect();
      const [caps] = await runStatement(client, "capabilities", CapabilitiesRow);
      this.caps = caps;
      this.capabilities = {
        aios: caps.aios,
        aiosDenied: caps.aios && !caps.aios_allowed,
        statIo: caps.stat_io,
        statStatements: caps.stat_statements,
        readAllStats: caps.read_all_stats,
        role: caps.role_name,
      };
      this.serverVersion = caps.server_version;
      this.serverVersionNum = caps.server_version_num;
      this.relations.reset(Number(caps.database_oid), caps.database);
      this.pgss.configure(caps);
      // Settings and start time first: io workers configured, restart seen.
      // No sample runs on this client before (it would use the old settings).
      await this.refreshServerState(client, Date.now());
      this.client = client;
      this.checksAfterTick = true;
    } catch (err) {
      this.client = null;
      await client.end().catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(deadline);
    }
  }

  private lost(client: pg.Client, err: Error): void {
    if (this.client !== client || this.stopped) return;
    this.dropClient();
    const now = Date.now();
    const text = errorText(err, passwordOf(this.url ?? ""));
    this.window.markDown(now, text);
    this.setStatus("down", text);
    this.retry = 0;
    this.connect();
  }

  private dropClient(): void {
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners("end");
      client.on("error", () => undefined);
      void client.end().catch(() => undefined);
    }
  }

  private setStatus(status: TargetStatus, error: string | null): void {
    if (status !== this.status) {
      this.status = status;
      this.statusSince = Date.now();
      if (status === "down" && error) this.logOnce(`target ${this.options.name} is down: ${error}`);
      if (status === "up") this.logOnce(`target ${this.options.name} is up (${this.serverVersion ?? "?"})`);
    }
    this.lastError = error;
    this.publishTarget();
  }

  // ---- scheduling ------------------------------------------------------------

  private reschedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.nextDue = Date.now();
    this.schedule();
    this.publishTarget();
  }

  private schedule(): void {
    if (this.stopped) return;
    const delay = Math.max(0, this.nextDue - Date.now());
    this.timer = setTimeout(() => this.onDue(), delay);
  }

  private onDue(): void {
    const now = Date.now();
    const interval = this.intervalMs;
    // Slots that passed while the event loop was held up count as missed.
    const late = Math.floor((now - this.nextDue) / interval);
    if (late > 0) {
      this.missed += late;
      this.nextDue += late * interval;
    }
    this.nextDue += interval;
    this.schedule();
    if (this.busy || !this.client) {
      this.missed++;
      return;
    }
    void this.sample(this.client, now);
  }

  // ---- sampling --------------------------------------------------------------

  /**
   * The server ends a slow statement itself (statement_timeout); the guard
   * ends the connection when no answer comes back at all (a hung network).
   * Returns the function that disarms it.
   */
  private guard(client: pg.Client, statements: number): () => void {
    const timeout = this.options.statementTimeoutMs ?? 1000;
    const limit = statements * timeout + 500;
    const timer = setTimeout(() => this.lost(client, new Error(`no answer from the target within ${limit} ms`)), limit);
    return () => clearTimeout(timer);
  }

  private async sample(client: pg.Client, now: number): Promise<void> {
    this.busy = true;
    let sampled = false;
    let disarm = this.guard(client, 1);
    try {
      const started = performance.now();
      const rows = await runStatement(client, this.caps?.aios && this.caps.aios_allowed ? "activity_aios" : "activity", ActivityRow);
      observeSampleDuration(this.options.id, (performance.now() - started) / 1000);
      disarm();
      disarm = this.guard(client, 6);
      const tick = this.window.addActivity(now, rows);
      sampled = true;
      this.samples++;
      this.recentSamples.push(now);
      if (this.recentSamples.length > 2000) this.recentSamples.splice(0, 1000);
      if (tick.aio.inFlight > 0) this.asyncSeenAt = now;
      if (tick.aio.inFlight > 0 || tick.aio.sync > 0 || tick.waits["IO:DataFileRead"]) this.readsSeenAt = now;
      this.hub.publish("tick", tick);
      // The checks run at connect saw the last tick of the old connection
      // (before a restart: its io workers): run them again with a fresh one.
      if (this.checksAfterTick) {
        this.checksAfterTick = false;
        this.updateChecks(now);
      }

      if (now - this.lastIoAt >= IO_EVERY_MS && this.caps?.stat_io) {
        this.lastIoAt = now;
        const io = await runStatement(client, this.caps.stat_io_bytes ? "stat_io" : "stat_io_op_bytes", StatIoRow);
        const delta = this.window.addStatIo(now, io);
        if (delta) {
          if (delta.totals.reads > 0) this.readsSeenAt = now;
          this.hub.publish("io", delta);
        }
      }
      if (now - this.lastSettingsAt >= SETTINGS_EVERY_MS) await this.refreshServerState(client, now);
      if (now - this.lastStatementsAt >= STATEMENTS_EVERY_MS) {
        this.lastStatementsAt = now;
        await this.pgss.refresh(client, now, this.window);
      }
      await this.relations.resolvePending(client);
      const readsInFlight = (this.window.ticks.last()?.aio.inFlight ?? 0) > 0;
      if (now - this.lastQueriesAt >= (readsInFlight ? PUBLISH_BUSY_MS : PUBLISH_EVERY_MS)) {
        this.lastQueriesAt = now;
        this.publishQueries();
      }
      if (now - this.lastPublishAt >= PUBLISH_EVERY_MS) {
        this.lastPublishAt = now;
        this.hub.publish("outages", { outages: this.window.outages });
        this.publishTarget();
      }
    } catch (err) {
      // Every due tick is either a sample or a miss: one that failed is a miss.
      if (!sampled) this.missed++;
      if (this.client === client) this.sampleFailed(client, err);
    } finally {
      disarm();
      this.busy = false;
    }
  }

  private sampleFailed(client: pg.Client, err: unknown): void {
    const text = errorText(err, passwordOf(this.url ?? ""));
    const code = (err as { code?: string }).code;
    // 57014: statement_timeout, a slow tick; nothing to report.
    if (code === "57014") return;
    this.lastError = text;
    // The session still works: reconnecting would not cure the statement,
    // it would only loop. The next tick tries again at the usual cadence.
    if (isStatementError(err)) {
      this.logOnce(`target ${this.options.name}: ${text}`);
      return;
    }
    // The connection is gone (or no longer trusted): lost() logs it as down.
    this.lost(client, err as Error);
  }

  private async refreshServerState(client: pg.Client, now: number): Promise<void> {
    this.lastSettingsAt = now;
    const rows = await runStatement(client, "settings", SettingRow, [IO_SETTINGS]);
    const [server] = await runStatement(client, "server_info", ServerInfoRow);
    this.serverVersion = server.server_version;
    this.serverVersionNum = server.server_version_num;
    const before = JSON.stringify(this.window.settings);
    const restart = this.window.setServerState(now, toSettings(rows), server.postmaster_start_ms);
    if (restart) {
      const changes = restart.changes.map((c) => `${c.name} ${c.before} -> ${c.after}`).join(", ") || "no io setting changed";
      this.log(`target ${this.options.name} restarted at ${new Date(restart.at).toISOString()}: ${changes}`);
    }
    this.updateChecks(now);
    if (restart || before !== JSON.stringify(this.window.settings)) this.publishSettings();
  }

  private updateChecks(now: number): void {
    const before = JSON.stringify(this.window.checks);
    this.window.checks = computeChecks({
      settings: this.window.settings,
      capabilities: this.capabilities,
      lastTick: this.window.ticks.last(),
      asyncSeen: this.asyncSeenAt > now - this.options.windowMs && this.asyncSeenAt >= this.window.serverStartSeenAt,
      readsSeen: this.readsSeenAt > now - this.options.windowMs && this.readsSeenAt >= this.window.serverStartSeenAt,
    });
    if (before !== JSON.stringify(this.window.checks)) this.publishSettings();
  }

  // ---- publishing ------------------------------------------------------------

  private publishTarget(): void {
    this.hub.publish("target", this.info());
  }

  private publishSettings(): void {
    const w = this.window;
    this.hub.publish("settings", { settings: w.settings, checks: w.checks, restarts: w.restarts });
  }

  /** What a queries event carries: the running runs and the newest ended
   * ones (the /window snapshot has them all). */
  queriesPayload(): StreamPayload<"queries"> {
    const w = this.window;
    const runs = w.queries();
    const running = runs.filter((r) => r.endedAt === null);
    const ended = runs.filter((r) => r.endedAt !== null).slice(0, STREAMED_ENDED_RUNS);
    return { queries: [...running, ...ended], statements: w.statements, statementsNote: w.statementsNote };
  }

  private publishQueries(): void {
    if (this.hub.viewers === 0) return;
    this.hub.publish("queries", this.queriesPayload());
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  /**
   * A distinct line at most once a minute, with how often it came in
   * between: a target that flaps or keeps failing does not loop in the log,
   * and a failure that comes back later is still reported.
   */
  private logOnce(line: string): void {
    const now = Date.now();
    const last = this.logged.get(line);
    if (last && now - last.at < LOG_REPEAT_MS) {
      last.repeats++;
      return;
    }
    if (this.logged.size >= 200) this.logged.clear();
    this.logged.set(line, { at: now, repeats: 0 });
    this.log(last?.repeats ? `${line} (${last.repeats} more since the last report)` : line);
  }
}
