import "server-only";
import type Database from "better-sqlite3";
import type { SampleRows } from "../../model/history/samples";
import type { HistoryFinding, SamplesStatus, HistoryTick } from "../../schemas/history";
import type { QueryRun } from "../../schemas/runs";
import { oldestSample, openSamples, unpack } from "./samples-db.mjs";
import { describeFailure } from "./failure";
import { SampleWriter, type WriteAck } from "./writer";

export interface SampleOptions {
  file: string;
  retentionMs: number;
  maxBytes: number;
  log: (line: string) => void;
}

/** How often the queue goes to the writer, as one batch (a batch of this many seconds packs well). */
export const FLUSH_EVERY_MS = 5000;
/** Rows queued or with the writer at most (BENCHMARKS.md's busy targets kept 9 and 17 a second); beyond, new rows are dropped and counted. */
export const MAX_QUEUED = 20_000;
/** A write waits this long for another connection's lock on the file before the batch fails (off the main thread). */
export const LOCK_WAIT_MS = 30_000;
/** A file that failed is tried again this often (a full disk may have room again). */
const RETRY_MS = 30_000;
const PRUNE_EVERY_MS = 10 * 60_000;
/** The main thread's reads (and its opening of the file at the start) wait at most this long for a lock. */
const READ_WAIT_MS = 500;
/** At a stop, the writer has this long to write what it was given. */
const CLOSE_WAIT_MS = 5000;

type Queued = { key: string; id: string; rows: SampleRows };

/** What a target's recorder hands its rows to. */
export interface SampleSink {
  write(rows: SampleRows): void;
  status(): SamplesStatus;
}

export interface HistoryRows {
  ticks: HistoryTick[];
  runs: QueryRun[];
  findings: HistoryFinding[];
  keptFrom: number | null;
}

/** A finding as kept: before the severity "warn" was named "note" as the page shows it, it was kept as "warn". */
const keptFinding = (f: HistoryFinding | (Omit<HistoryFinding, "severity"> & { severity: "warn" })): HistoryFinding =>
  f.severity === "warn" ? { ...f, severity: "note" } : f;
const count = (r: SampleRows) => r.ticks.length + r.runs.length + r.findings.length;

/**
 * The history on disk: rows queue in memory and go, every 5 s from
 * a timer (never from the tick), as one batch to the writer, a
 * worker_thread with its own connection (writer.ts); the main thread keeps
 * a connection of its own to read ranges (WAL: reads never wait for the
 * writer). What is queued or with the writer is bounded; beyond, and
 * whatever the writer could not write, rows are dropped and counted per
 * target (on the page and on /metrics); a failure is said once, and the
 * file is tried again every 30 s. The live page never waits for the disk.
 */
export class SampleStore {
  private reader: Database.Database | null = null;
  private readonly writer: SampleWriter;
  private queue: Queued[] = [];
  private queued = 0;
  /** rows posted to the writer and not answered yet */
  private posted = 0;
  private dropped = new Map<string, number>();
  private reason: string | null = null;
  private failedAt = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  private constructor(
    readonly options: SampleOptions,
    off: string | null,
  ) {
    this.reason = off;
    this.writer = new SampleWriter({
      file: options.file,
      retentionMs: options.retentionMs,
      maxBytes: options.maxBytes,
      lockWaitMs: LOCK_WAIT_MS,
      pruneEveryMs: PRUNE_EVERY_MS,
    });
  }

  /** Opens (or makes) the file for reading at once, so a file that cannot be used is said at the start. */
  static open(options: SampleOptions): SampleStore {
    const store = new SampleStore(options, null);
    store.openReader(Date.now());
    return store;
  }

  /** Never kept (INFLIGHT_HISTORY=off): every row is dropped without a count. */
  static off(options: SampleOptions, reason: string): SampleStore {
    return new SampleStore({ ...options, file: "" }, reason);
  }

  get on(): boolean {
    return this.reason === null;
  }

  status(id: string): SamplesStatus {
    return { on: this.reason === null, reason: this.reason, dropped: this.dropped.get(id) ?? 0 };
  }

  droppedTotal(id: string): number {
    return this.dropped.get(id) ?? 0;
  }

  /** `key()`: the history's key for the target at the moment (the history store's keyFor). */
  forTarget(id: string, key: () => string): SampleSink {
    return { write: (rows) => this.enqueue(key(), id, rows), status: () => this.status(id) };
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(Date.now()), FLUSH_EVERY_MS);
    this.timer.unref?.();
  }

  enqueue(key: string, id: string, rows: SampleRows): void {
    const n = count(rows);
    if (n === 0 || !this.options.file) return;
    if (this.queued + this.posted + n > MAX_QUEUED) return this.drop(id, n);
    this.queue.push({ key, id, rows });
    this.queued += n;
  }

  /**
   * Hands what is queued to the writer; resolves once the writer answered
   * (written, or dropped and counted, and why said once). A file known to
   * refuse drops what waits (counted) until it is tried again.
   */
  flush(now: number): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    if (this.reason !== null && now - this.failedAt < RETRY_MS) {
      this.dropQueue();
      return Promise.resolve();
    }
    const batch = this.queue;
    const n = this.queued;
    this.queue = [];
    this.queued = 0;
    this.posted += n;
    return this.writer
      .write(
        batch.map(({ key, rows }) => ({ key, rows })),
        now,
      )
      .then((ack) => this.answered(batch, n, ack, now));
  }

  /** The rows of [from, to) for the target keyed `key`; none when the file cannot be read (status says why). */
  read(key: string, from: number, to: number): HistoryRows {
    return this.reading({ ticks: [], runs: [], findings: [], keptFrom: null }, (db) => {
      const batches = <T>(sql: string) => (db.prepare(sql).pluck().all(key, from, to) as Buffer[]).flatMap((b) => unpack<T>(b));
      const ticks = batches<HistoryTick>(
        "SELECT data FROM sample_ticks WHERE target = ? AND t_to >= ? AND t_from < ? ORDER BY t_from",
      ).filter((t) => t.t >= from && t.t < to);
      // A running run is written again every 10 s: its newest copy (the ended one, once it ended) is the one kept.
      const runs = new Map<string, QueryRun>();
      for (const r of batches<QueryRun>(
        "SELECT data FROM sample_runs WHERE target = ? AND seen_max >= ? AND started_min < ? ORDER BY seen_max",
      )) {
        if ((r.endedAt ?? r.lastSeen) < from || r.startedAt >= to) continue;
        const kept = runs.get(r.id);
        if (!kept || (kept.endedAt === null && (r.endedAt !== null || r.lastSeen >= kept.lastSeen))) runs.set(r.id, r);
      }
      return {
        ticks,
        runs: [...runs.values()].sort((a, b) => a.startedAt - b.startedAt),
        findings: this.findings(key, from, to),
        keptFrom: oldestSample(db, key),
      };
    });
  }

  /** The findings that held in [from, to), alone (the fleet row's). */
  findings(key: string, from: number, to: number): HistoryFinding[] {
    return this.reading([], (db) => {
      const rows = db
        .prepare("SELECT data FROM sample_findings WHERE target = ? AND seen >= ? AND since < ? ORDER BY since")
        .pluck()
        .all(key, from, to) as string[];
      return rows.map((d) => keptFinding(JSON.parse(d) as HistoryFinding | (Omit<HistoryFinding, "severity"> & { severity: "warn" })));
    });
  }

  /** Hands the writer what is queued and waits (at most 5 s) for it to be written. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const last = this.flush(Date.now());
    const finished = await this.writer.close(CLOSE_WAIT_MS);
    await last;
    if (!finished)
      this.options.log(`samples: the writer did not finish within ${CLOSE_WAIT_MS / 1000} s of the stop; what it had is not kept`);
    this.reader?.close();
    this.reader = null;
  }

  // ---- internals -------------------------------------------------------------

  private answered(batch: Queued[], n: number, ack: WriteAck, now: number): void {
    this.posted -= n;
    if (!ack.written) for (const q of batch) this.drop(q.id, count(q.rows));
    if (ack.error) return this.fail(ack.error, now);
    if (this.reason !== null) this.options.log(`samples: ${this.options.file} is written again`);
    this.reason = null;
    if (!this.reader) this.openReader(now);
    if (ack.capped !== null)
      this.options.log(
        `samples: ${this.options.file} reached its cap of ${Math.round(this.options.maxBytes / 1024 / 1024)} MB: seconds before ${new Date(ack.capped).toISOString()} dropped`,
      );
  }

  /** A read that fails is the file failing (one line, status says why), never an error at the page. */
  private reading<T>(fallback: T, body: (db: Database.Database) => T): T {
    if (!this.reader) return fallback;
    try {
      return body(this.reader);
    } catch (err) {
      this.fail(err, Date.now(), "reading");
      return fallback;
    }
  }

  private openReader(now: number): void {
    try {
      this.reader = openSamples(this.options.file, READ_WAIT_MS);
    } catch (err) {
      this.fail(err, now);
    }
  }

  private drop(id: string, n: number): void {
    this.dropped.set(id, (this.dropped.get(id) ?? 0) + n);
  }

  private dropQueue(): void {
    for (const q of this.queue) this.drop(q.id, count(q.rows));
    this.queue = [];
    this.queued = 0;
  }

  /** Says why once; a file that cannot be read is closed, and opened again once a batch is written. */
  private fail(err: unknown, now: number, what = "writing"): void {
    const reason = describeFailure(this.options.file, err, what);
    if (reason !== this.reason) this.options.log(`samples not kept: ${reason}; the live page goes on, rows are dropped and counted`);
    this.reason = reason;
    this.failedAt = now;
    if (what !== "reading") return;
    try {
      this.reader?.close();
    } catch {
      // a broken file may not close cleanly either
    }
    this.reader = null;
  }
}
