import "server-only";
import type Database from "better-sqlite3";
import type { SampleRows } from "../../history/samples";
import type { PastFinding, PastStatus, PastTick } from "../../schemas/past";
import type { QueryRun } from "../../schemas/runs";
import { capSamples, oldestSample, openSamples, pack, pruneSamples, unpack } from "./samples-db";
import { describeFailure } from "./failure";

export interface SampleOptions {
  file: string;
  retentionMs: number;
  maxBytes: number;
  log: (line: string) => void;
}

/** How often the queue goes to disk, in one transaction (a batch of this many seconds packs well). */
export const FLUSH_EVERY_MS = 5000;
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
 * one transaction every 5 s, from a timer, never from the tick. A file that
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

  /** The rows of [from, to) for the target keyed `key`; none when the file cannot be read (status says why). */
  read(key: string, from: number, to: number): PastRows {
    return this.reading({ ticks: [], runs: [], findings: [], keptFrom: null }, (db) => {
      const batches = <T>(sql: string) => (db.prepare(sql).pluck().all(key, from, to) as Buffer[]).flatMap((b) => unpack<T>(b));
      const ticks = batches<PastTick>("SELECT data FROM sample_ticks WHERE target = ? AND t_to >= ? AND t_from < ? ORDER BY t_from").filter((t) => t.t >= from && t.t < to);
      // A running run is written again every 10 s: its newest copy (the ended one, once it ended) is the one kept.
      const runs = new Map<string, QueryRun>();
      for (const r of batches<QueryRun>("SELECT data FROM sample_runs WHERE target = ? AND seen_max >= ? AND started_min < ? ORDER BY seen_max")) {
        if ((r.endedAt ?? r.lastSeen) < from || r.startedAt >= to) continue;
        const kept = runs.get(r.id);
        if (!kept || (kept.endedAt === null && (r.endedAt !== null || r.lastSeen >= kept.lastSeen))) runs.set(r.id, r);
      }
      return { ticks, runs: [...runs.values()].sort((a, b) => a.startedAt - b.startedAt), findings: this.findings(key, from, to), keptFrom: oldestSample(db, key) };
    });
  }

  /** The findings that held in [from, to), alone (the fleet row's). */
  findings(key: string, from: number, to: number): PastFinding[] {
    return this.reading([], (db) => {
      const rows = db.prepare("SELECT data FROM sample_findings WHERE target = ? AND seen >= ? AND since < ? ORDER BY since").pluck().all(key, from, to) as string[];
      return rows.map((d) => JSON.parse(d) as PastFinding);
    });
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.flush(Date.now());
    this.db?.close();
    this.db = null;
  }

  // ---- internals -------------------------------------------------------------

  /** One batch of ticks and one of runs per target, the findings a row each, in one transaction. */
  private write(db: Database.Database, batch: Queued[]): void {
    const byKey = new Map<string, SampleRows>();
    for (const { key, rows } of batch) {
      const into = byKey.get(key) ?? { ticks: [], runs: [], findings: [] };
      into.ticks.push(...rows.ticks);
      into.runs.push(...rows.runs);
      into.findings.push(...rows.findings);
      byKey.set(key, into);
    }
    const ticks = db.prepare("INSERT INTO sample_ticks (target, t_from, t_to, data) VALUES (?, ?, ?, ?)");
    const runs = db.prepare("INSERT INTO sample_runs (target, started_min, seen_max, data) VALUES (?, ?, ?, ?)");
    const finding = db.prepare("INSERT OR REPLACE INTO sample_findings (target, id, since, seen, data) VALUES (?, ?, ?, ?, ?)");
    db.transaction(() => {
      for (const [key, rows] of byKey) {
        if (rows.ticks.length) ticks.run(key, Math.floor(Math.min(...rows.ticks.map((t) => t.t))), Math.ceil(Math.max(...rows.ticks.map((t) => t.t))), pack(rows.ticks));
        if (rows.runs.length) runs.run(key, Math.floor(Math.min(...rows.runs.map((r) => r.startedAt))), Math.ceil(Math.max(...rows.runs.map((r) => r.endedAt ?? r.lastSeen))), pack(rows.runs));
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

  /** A read that fails is the file failing (one line, status says why), never an error at the page. */
  private reading<T>(fallback: T, body: (db: Database.Database) => T): T {
    if (!this.db) return fallback;
    try {
      return body(this.db);
    } catch (err) {
      this.fail(err, Date.now(), "reading");
      return fallback;
    }
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

  private fail(err: unknown, now: number, what = "writing"): void {
    const reason = describeFailure(this.options.file, err, what);
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
