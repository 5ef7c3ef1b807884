import "server-only";
import pg from "pg";
import type { Capabilities, TargetInfo, TargetStatus } from "../schemas/window";
import { computeChecks } from "../window/checks";
import { ActivityRow, CapabilitiesRow, RelationRow, ServerInfoRow, SettingRow, StatIoRow } from "../window/rows";
import { IO_SETTINGS, toSettings } from "../window/settings";
import { TargetWindow } from "../window/window";
import { Hub } from "./hub";
import { RelationCache } from "./relations";
import { runStatement } from "./statements";
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

/** Retry delays after a lost connection, then the cap (5 s) for a target that stays down. */
const RETRY_MS = [100, 250, 500, 1000, 1000, 1000, 2000, 3000, 5000];

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
  private nextDue = 0;
  private lastIoAt = 0;
  private lastSettingsAt = 0;
  private lastStatementsAt = 0;
  private lastPublishAt = 0;
  private retry = 0;
  private connecting = false;
  private recentSamples: number[] = [];
  private loggedErrors = new Set<string>();
  private readonly relations: RelationCache;
  private readonly pgss: StatementsTracker;
  samples = 0;
  missed = 0;
  private asyncSeenAt = 0;
  private readsSeenAt = 0;

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
    this.timer = this.reconnectTimer = null;
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
        this.setStatus("up", null);
        this.window.markUp(Date.now());
      })
      .catch((err) => {
        this.dropClient();
        this.setStatus("down", errorText(err, passwordOf(this.url ?? "")));
        const delay = RETRY_MS[Math.min(this.retry++, RETRY_MS.length - 1)];
        this.reconnectTimer = setTimeout(() => {
          this.reconnectTimer = null;
          this.connect();
        }, delay);
      })
      .finally(() => {
        this.connecting = false;
      });
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
      };
      this.serverVersion = caps.server_version;
      this.serverVersionNum = caps.server_version_num;
      this.relations.reset(Number(caps.database_oid), caps.database);
      this.pgss.configure(caps);
      this.client = client;
      // Settings and start time first: io workers configured, restart seen.
      await this.refreshServerState(client, Date.now());
    } catch (err) {
      this.client = null;
      await client.end().catch(() => undefined);
      throw err;
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
      if (status === "up") this.log(`target ${this.options.name} is up (${this.serverVersion ?? "?"})`);
    }
    if (status === "up") this.loggedErrors.clear();
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

  private async sample(client: pg.Client, now: number): Promise<void> {
    this.busy = true;
    const guard = setTimeout(() => this.lost(client, new Error(`sampling statement took over ${this.options.statementTimeoutMs ?? 1000} ms`)), (this.options.statementTimeoutMs ?? 1000) + 500);
    try {
      const started = performance.now();
      const rows = await runStatement(client, this.caps?.aios && this.caps.aios_allowed ? "activity_aios" : "activity", ActivityRow);
      observeSampleDuration(this.options.id, (performance.now() - started) / 1000);
      const tick = this.window.addActivity(now, rows);
      this.samples++;
      this.recentSamples.push(now);
      if (this.recentSamples.length > 2000) this.recentSamples.splice(0, 1000);
      if (tick.aio.inFlight > 0) this.asyncSeenAt = now;
      if (tick.aio.inFlight > 0 || tick.aio.sync > 0 || tick.waits["IO:DataFileRead"]) this.readsSeenAt = now;
      this.hub.publish("tick", tick);

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
      if (now - this.lastPublishAt >= PUBLISH_EVERY_MS) {
        this.lastPublishAt = now;
        this.publishQueries();
        this.publishTarget();
      }
    } catch (err) {
      if (this.client === client) this.sampleFailed(client, err);
    } finally {
      clearTimeout(guard);
      this.busy = false;
    }
  }

  private sampleFailed(client: pg.Client, err: unknown): void {
    const text = errorText(err, passwordOf(this.url ?? ""));
    const code = (err as { code?: string }).code;
    // 57014: statement_timeout; the tick is missed, the session is fine.
    if (code === "57014") {
      this.missed++;
      return;
    }
    this.logOnce(`target ${this.options.name}: ${text}`);
    this.lastError = text;
    // Anything else on this connection is suspect: start a fresh one.
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
      asyncSeen: this.asyncSeenAt > now - this.options.windowMs && this.asyncSeenAt > (this.window.serverStart ?? 0),
      readsSeen: this.readsSeenAt > now - this.options.windowMs && this.readsSeenAt > (this.window.serverStart ?? 0),
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

  private publishQueries(): void {
    const w = this.window;
    this.hub.publish("queries", { queries: w.queries(), statements: w.statements, statementsNote: w.statementsNote });
    this.hub.publish("outages", { outages: w.outages });
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  /** One line per distinct error until the target is up again: no log loops. */
  private logOnce(line: string): void {
    if (this.loggedErrors.has(line)) return;
    this.loggedErrors.add(line);
    this.log(line);
  }
}
