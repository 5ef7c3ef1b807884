import "server-only";
import type Database from "better-sqlite3";
import type { SampleRows } from "../../history/samples";
import type { PastFinding, PastStatus, PastTick } from "../../schemas/past";
import type { QueryRun } from "../../schemas/runs";
import { capSamples, oldestSample, openSamples, pruneSamples } from "./samples-db";
import { describeFailure } from "./store";

export interface SampleOptions {
  file: string;
  retentionMs: number;
  maxBytes: number;
  log: (line: string) => void;
}

/** How often the queue goes to disk, in one transaction. */
export const FLUSH_EVERY_MS = 2000;
/** Rows waiting at most (about a minute of a busy target); beyond, new rows are dropped and counted. */
const MAX_QUEUED = 20_000;
/** A file that failed is tried again this often (a full disk may have room again). */
const RETRY_MS = 30_000;
const PRUNE_EVERY_MS = 10 * 60_000;

type Queued = { key: string; id: string; rows: SampleRows };

/** What a target's recorder hands its rows to. */
export interface SampleSink {
  write(rows: SampleRows): void;
  status(): PastStatus;
}

export interface PastRows {
  ticks: PastTick[];
  runs: QueryRun[];
  findings: PastFinding[];
  keptFrom: number | null;
}

const count = (r: SampleRows) => r.ticks.length + r.runs.length + r.findings.length;

/**
 * The sampled picture on disk: rows queue in memory and go to the file in
 * one transaction every 2 s, from a timer, never from the tick. A file that
 * cannot be written drops what is queued (counted per target, on the page
 * and on /metrics), says why once, and is tried again every 30 s; the live
 * page never waits for it.
 */
export class SampleStore {
  private db: Database.Database | null = null;
  private queue: Queued[] = [];
  private queued = 0;
  private dropped = new Map<string, number>();
  private reason: string | null = null;
  private failedAt = 0;
  private prunedAt = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  private constructor(readonly options: SampleOptions, off: string | null) {
    this.reason = off;
  }

  static open(options: SampleOptions): SampleStore {
    const store = new SampleStore(options, null);
    store.tryOpen(Date.now());
    return store;
  }

  /** Never kept (INFLIGHT_HISTORY=off): every row is dropped without a count. */
  static off(options: SampleOptions, reason: string): SampleStore {
    return new SampleStore({ ...options, file: "" }, reason);
  }

  get on(): boolean {
    return this.reason === null;
  }

  status(id: string): PastStatus {
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
    this.timer ??= setInterval(() => this.flush(Date.now()), FLUSH_EVERY_MS);
    this.timer.unref?.();
  }

  enqueue(key: string, id: string, rows: SampleRows): void {
    const n = count(rows);
    if (n === 0 || !this.options.file) return;
    if (this.queued + n > MAX_QUEUED) return this.drop(id, n);
    this.queue.push({ key, id, rows });
    this.queued += n;
  }

  /** Writes what is queued, in one transaction; a failure drops it (counted) and says why once. */
  flush(now: number): void {
    if (this.queue.length === 0) return;
    if (!this.db && !(now - this.failedAt >= RETRY_MS && this.tryOpen(now))) {
      // A file known to refuse: what waits is dropped (and counted) rather than kept growing.
      this.dropQueue();
      return;
    }
    const batch = this.queue;
    this.queue = [];
    this.queued = 0;
    try {
      this.write(this.db!, batch);
      this.bound(this.db!, now);
      if (this.reason !== null) this.options.log(`samples: ${this.options.file} is written again`);
      this.reason = null;
    } catch (err) {
      for (const q of batch) this.drop(q.id, count(q.rows));
      this.fail(err, now);
    }
  }

  /** The rows of [from, to) for the target keyed `key`. */
  read(key: string, from: number, to: number): PastRows {
    const db = this.db;
    if (!db) return { ticks: [], runs: [], findings: [], keptFrom: null };
    const json = <T>(rows: unknown[]) => (rows as string[]).map((d) => JSON.parse(d) as T);
    return {
      ticks: json<PastTick>(db.prepare("SELECT data FROM sample_ticks WHERE target = ? AND t >= ? AND t < ? ORDER BY t").pluck().all(key, from, to)),
      runs: json<QueryRun>(db.prepare("SELECT data FROM sample_runs WHERE target = ? AND last_seen >= ? AND started_at < ? ORDER BY started_at").pluck().all(key, from, to)),
      findings: this.findings(key, from, to),
      keptFrom: oldestSample(db, key),
    };
  }

  /** The findings that held in [from, to), alone (the fleet row's). */
  findings(key: string, from: number, to: number): PastFinding[] {
    const rows = this.db?.prepare("SELECT data FROM sample_findings WHERE target = ? AND seen >= ? AND since < ? ORDER BY since").pluck().all(key, from, to) ?? [];
    return (rows as string[]).map((d) => JSON.parse(d) as PastFinding);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.flush(Date.now());
    this.db?.close();
    this.db = null;
  }

  // ---- internals -------------------------------------------------------------

  private write(db: Database.Database, batch: Queued[]): void {
    const tick = db.prepare("INSERT OR REPLACE INTO sample_ticks (target, t, data) VALUES (?, ?, ?)");
    const run = db.prepare("INSERT OR REPLACE INTO sample_runs (target, id, started_at, last_seen, data) VALUES (?, ?, ?, ?, ?)");
    const finding = db.prepare("INSERT OR REPLACE INTO sample_findings (target, id, since, seen, data) VALUES (?, ?, ?, ?, ?)");
    db.transaction(() => {
      for (const { key, rows } of batch) {
        for (const t of rows.ticks) tick.run(key, Math.round(t.t), JSON.stringify(t));
        for (const r of rows.runs) run.run(key, r.id, Math.round(r.startedAt), Math.round(r.endedAt ?? r.lastSeen), JSON.stringify(r));
        for (const f of rows.findings) finding.run(key, f.id, Math.round(f.from), Math.round(f.to ?? f.seen), JSON.stringify(f));
      }
    })();
  }

  private bound(db: Database.Database, now: number): void {
    if (now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = now;
      pruneSamples(db, now - this.options.retentionMs);
    }
    const cutoff = capSamples(db, this.options.maxBytes, now);
    if (cutoff !== null) this.options.log(`samples: ${this.options.file} reached its cap of ${Math.round(this.options.maxBytes / 1024 / 1024)} MB: seconds before ${new Date(cutoff).toISOString()} dropped`);
  }

  private tryOpen(now: number): boolean {
    try {
      this.db = openSamples(this.options.file);
      return true;
    } catch (err) {
      this.fail(err, now);
      return false;
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

  private fail(err: unknown, now: number): void {
    const reason = describeFailure(this.options.file, err, "writing");
    if (reason !== this.reason) this.options.log(`samples not kept: ${reason}; the live page goes on, rows are dropped and counted`);
    this.reason = reason;
    this.failedAt = now;
    try {
      this.db?.close();
    } catch {
      // a broken file may not close cleanly either; it is reopened on the next try
    }
    this.db = null;
  }
}
