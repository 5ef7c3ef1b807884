import "server-only";

import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import pg from "pg";

import type { EmbeddedServer } from "./embedded";
import { dropFromPageCache, segmentFiles } from "./evict";
import { BITMAP_RANGE_SHARE, BOOKKEEPING, demoStatements } from "./statements";

export interface WorkloadOptions {
  database: string;
  /** Table made by ensureDemoDatabase, e.g. "public.readings" (needs columns id, reading, payload). */
  table: string;
  log?: (line: string) => void;
  /** Pause between steps so a viewer can follow them. Default 1500. */
  pauseMs?: number;
}

export interface Workload {
  /** Cancels the running statement and resolves when the loop has ended. */
  stop(): Promise<void>;
}

export const WORKLOAD_APPLICATION_NAME = "inflight-demo";
const RECONNECT_MS = 2_000;
const POINT_LOOKUPS = 2_000;
const UPDATE_ROWS = 50_000;

function defaultLog(line: string): void {
  console.log(`[inflight] ${line}`);
}

export function startWorkload(server: EmbeddedServer, opts: WorkloadOptions): Workload {
  return new DemoWorkload(server, opts);
}

/** Thrown inside the loop when stop() was called; never reaches the caller. */
class Stopped extends Error {}

/** Statements for one table; the name is quoted once per session. */
function statements(client: pg.Client, table: string) {
  return demoStatements(table, (part) => client.escapeIdentifier(part));
}

const RELATION_FILES = `
SELECT ${BOOKKEEPING} pg_relation_filepath($1::regclass) AS heap,
       array(SELECT pg_relation_filepath(indexrelid) FROM pg_index WHERE indrelid = $1::regclass) AS indexes`;

class DemoWorkload implements Workload {
  private stopped = false;
  private readonly abort = new AbortController();
  private client: pg.Client | null = null;
  private backendPid: number | null = null;
  private inStatement = false;
  private readonly done: Promise<void>;
  private stopping: Promise<void> | null = null;
  private lastFailure: string | null = null;
  private readonly log: (line: string) => void;
  private readonly pauseMs: number;

  constructor(
    private readonly server: EmbeddedServer,
    private readonly opts: WorkloadOptions,
  ) {
    this.log = opts.log ?? defaultLog;
    this.pauseMs = opts.pauseMs ?? 1_500;
    this.done = this.loop().catch((err: unknown) => this.log(`demo workload ended by a bug: ${oneLine(err)}`));
  }

  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    const client = this.client;
    if (client && this.inStatement && this.backendPid !== null) await this.cancel(client, this.backendPid);
    await this.done;
    this.log("demo workload stopped");
  }

  /** Cancel from a second connection: ending our socket alone leaves the backend scanning on. */
  private async cancel(client: pg.Client, pid: number): Promise<void> {
    const admin = new pg.Client({ connectionString: this.server.superuserUrl(this.opts.database), connectionTimeoutMillis: 5_000 });
    try {
      await admin.connect();
      await admin.query(`SELECT ${BOOKKEEPING} pg_cancel_backend($1)`, [pid]);
    } catch (err) {
      this.log(`demo workload: could not cancel backend ${pid} (${oneLine(err)}); closing its connection`);
      await client.end();
    } finally {
      await admin.end();
    }
  }

  private async loop(): Promise<void> {
    this.log(`demo workload running on ${this.opts.database}.${this.opts.table}`);
    while (!this.stopped) {
      try {
        await this.session();
      } catch (err) {
        if (this.stopped) break;
        const message = `demo workload: ${oneLine(err)}; reconnecting in ${RECONNECT_MS / 1000} s`;
        // A server that stays down would repeat the same line every 2 s; say it once.
        if (message !== this.lastFailure) this.log(message);
        this.lastFailure = message;
        await this.pause(RECONNECT_MS);
      }
    }
  }

  /** One connection's life: the four steps, round and round. Any error ends the session. */
  private async session(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.server.superuserUrl(this.opts.database),
      application_name: WORKLOAD_APPLICATION_NAME,
      connectionTimeoutMillis: 10_000,
    });
    let connectionError: Error | null = null;
    // Without a listener an idle connection's failure (server restart) would crash the process; the next query reports it.
    client.on("error", (err) => (connectionError = err));
    this.client = client;
    try {
      await client.connect();
      if (this.lastFailure) this.log("demo workload: reconnected");
      this.lastFailure = null;
      const sql = statements(client, this.opts.table);
      const me = await this.query<{ pid: number }>(client, `SELECT ${BOOKKEEPING} pg_backend_pid() AS pid`);
      this.backendPid = me.rows[0]?.pid ?? null;
      // Parallel workers would split the reads across processes; one backend is easier to watch.
      await this.query(client, "SET max_parallel_workers_per_gather = 0");
      while (!this.stopped) {
        await this.coldSeqScan(client, sql);
        await this.coldBitmapScan(client, sql);
        await this.coldPointLookups(client, sql);
        await this.updateAndVacuum(client, sql);
      }
    } catch (err) {
      throw connectionError ?? err;
    } finally {
      this.client = null;
      this.backendPid = null;
      await client.end();
    }
  }

  private async coldSeqScan(client: pg.Client, sql: ReturnType<typeof statements>): Promise<void> {
    await this.evict(client, false);
    await this.query(client, sql.seqScan);
    await this.pause(this.pauseMs);
  }

  /** A clustered id range read through a bitmap: async heap reads of neighbouring blocks. */
  private async coldBitmapScan(client: pg.Client, sql: ReturnType<typeof statements>): Promise<void> {
    const maxId = await this.maxId(client, sql);
    const span = Math.max(1, Math.floor(maxId * BITMAP_RANGE_SHARE));
    const from = 1 + Math.floor(Math.random() * Math.max(1, maxId - span));
    await this.evict(client, true);
    await this.inTransaction(client, ["SET LOCAL enable_seqscan = off", "SET LOCAL enable_indexscan = off"], () =>
      this.query(client, sql.rangeScan, [from, from + span - 1]),
    );
    await this.pause(this.pauseMs);
  }

  /** Random point lookups through the index: in PostgreSQL 18 these read synchronously. */
  private async coldPointLookups(client: pg.Client, sql: ReturnType<typeof statements>): Promise<void> {
    const maxId = await this.maxId(client, sql);
    const ids = Array.from({ length: POINT_LOOKUPS }, () => 1 + Math.floor(Math.random() * maxId));
    await this.evict(client, true);
    await this.inTransaction(client, ["SET LOCAL enable_seqscan = off", "SET LOCAL enable_bitmapscan = off"], () =>
      this.query(client, sql.pointLookups, [ids]),
    );
    await this.pause(this.pauseMs);
  }

  /**
   * Always the same tail slice, so the new row versions stay at the end of
   * the heap and the rest of the table keeps its id order. The CHECKPOINT
   * writes the dirtied pages out; only clean pages can be evicted before the
   * next cold scan.
   */
  private async updateAndVacuum(client: pg.Client, sql: ReturnType<typeof statements>): Promise<void> {
    const maxId = await this.maxId(client, sql);
    await this.evict(client, true);
    await this.query(client, sql.update, [Math.max(0, maxId - UPDATE_ROWS), maxId]);
    await this.query(client, sql.vacuum);
    await this.query(client, "CHECKPOINT");
    await this.pause(this.pauseMs);
  }

  private async maxId(client: pg.Client, sql: ReturnType<typeof statements>): Promise<number> {
    const res = await this.query<{ max_id: string }>(client, sql.maxId);
    const maxId = Number(res.rows[0]?.max_id ?? 0);
    if (maxId < 1) throw new Error(`${this.opts.table} is empty; run ensureDemoDatabase first`);
    return maxId;
  }

  private async inTransaction(client: pg.Client, settings: string[], body: () => Promise<unknown>): Promise<void> {
    await this.query(client, "BEGIN");
    for (const setting of settings) await this.query(client, setting);
    await body();
    await this.query(client, "COMMIT");
  }

  /**
   * Drops the table's (and its indexes') segment files from the OS page
   * cache, so the next read really goes to disk (posix_fadvise DONTNEED via dd).
   */
  private async evict(client: pg.Client, withIndexes: boolean): Promise<void> {
    const res = await this.query<{ heap: string; indexes: string[] }>(client, RELATION_FILES, [this.opts.table]);
    const row = res.rows[0];
    if (!row) throw new Error(`no relation file for ${this.opts.table}`);
    const relations = withIndexes ? [row.heap, ...row.indexes] : [row.heap];
    for (const relation of relations) await dropFromPageCache(await segmentFiles(path.join(this.server.dataDir, relation)));
  }

  private async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    client: pg.Client,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    if (this.stopped) throw new Stopped("stopped");
    this.inStatement = true;
    try {
      return await client.query<R>(text, values);
    } finally {
      this.inStatement = false;
    }
  }

  /** Resolves early (without error) when stop() is called. */
  private async pause(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: this.abort.signal });
    } catch (err) {
      if ((err as { name?: string }).name !== "AbortError") throw err;
    }
  }
}

function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\s+/g, " ").trim();
}
