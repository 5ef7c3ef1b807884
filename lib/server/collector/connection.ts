import "server-only";
import net from "node:net";
import pg from "pg";
import { errorText, passwordOf } from "./errors";

/** Delays between connection attempts, then the cap (5 s) for a target that stays down. */
export const RETRY_MS = [100, 250, 500, 1000, 1000, 1000, 2000, 3000, 5000] as const;
/** While the server says it is starting up or shutting down (57P03): it answers again soon. */
const STARTING_RETRY_MS = 250;
const STARTING_RETRIES = 40;
/** While the port refuses connections, how often to look whether it listens again. */
export const PORT_WATCH_MS = 250;

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

/** Nothing listens on the target's port: a cheap probe shows when it does again. */
function isRefused(err: unknown): boolean {
  return (err as { code?: string })?.code === "ECONNREFUSED";
}

export interface ConnectionEvents {
  /** A new session, before anything samples on it: read what the server
   * offers and its settings. Throwing fails the attempt (it is retried). */
  open(client: pg.Client): Promise<void>;
  up(client: pg.Client): void;
  /** `wasUp`: an open session was lost (rather than an attempt failing). */
  down(error: string, wasUp: boolean): void;
}

export interface ConnectionOptions {
  /** the server's statement_timeout and the client's own limit on one statement */
  statementTimeoutMs: number;
  events: ConnectionEvents;
}

/**
 * One persistent, read-only connection to a target: connects, retries with
 * back-off, watches a refusing port so it reconnects as soon as the server
 * listens again, and reports a lost session once.
 */
export class Connection {
  private url: string | null = null;
  private client: pg.Client | null = null;
  private stopped = true;
  private connecting = false;
  private retry = 0;
  private startingRetries = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private watchTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: ConnectionOptions) {}

  /** The open session's client, or null while there is none. */
  get current(): pg.Client | null {
    return this.client;
  }

  start(url: string): void {
    this.url = url;
    this.stopped = false;
    this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimers();
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }

  /** The session is gone (or no longer trusted): report it and connect again. */
  lose(client: pg.Client, err: unknown): void {
    if (this.client !== client || this.stopped) return;
    this.dropClient();
    this.options.events.down(this.describe(err), true);
    this.retry = 0;
    this.connect();
  }

  /** An error's text with the target's password masked. */
  describe(err: unknown): string {
    return errorText(err, passwordOf(this.url ?? ""));
  }

  private clearTimers(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.reconnectTimer = this.watchTimer = null;
  }

  private connect(): void {
    if (this.stopped || this.connecting || !this.url) return;
    this.connecting = true;
    void this.open()
      .then((client) => {
        this.retry = 0;
        this.startingRetries = 0;
        this.options.events.up(client);
      })
      .catch((err) => {
        this.dropClient();
        this.options.events.down(this.describe(err), false);
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
    this.clearTimers();
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

  private async open(): Promise<pg.Client> {
    const timeout = this.options.statementTimeoutMs;
    const client = new pg.Client({
      connectionString: this.url!,
      application_name: "inflight",
      statement_timeout: timeout,
      // Nothing inflight runs may wait on a user's lock for long.
      lock_timeout: Math.min(500, timeout),
      idle_in_transaction_session_timeout: 5000,
      connectionTimeoutMillis: 3000,
      options: "-c default_transaction_read_only=on",
    });
    // An error after connect (server gone, session killed) arrives here and
    // on the statement in flight; the sampling loop handles it there.
    client.on("error", (err) => this.lose(client, err));
    client.on("end", () => this.lose(client, new Error("connection closed")));
    // connectionTimeoutMillis covers the handshake; this covers the first
    // statements too (a network that hangs after the handshake).
    const deadline = setTimeout(() => void client.end().catch(() => undefined), 3000 + 4 * (timeout + 500));
    try {
      await client.connect();
      await this.options.events.open(client);
      this.client = client;
      return client;
    } catch (err) {
      this.client = null;
      await client.end().catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(deadline);
    }
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
}
