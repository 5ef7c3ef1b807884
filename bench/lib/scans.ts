// Cold sequential scans, one after another on one connection: the table's
// files are dropped from the OS page cache before each (posix_fadvise
// DONTNEED through dd, as lib/test/pg.ts does, but without blocking the event
// loop), and each scan carries a unique comment so observers' views of it can
// be matched: /* bench-scan <run>-<n> */.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { sleep } from "./stats";

const execFileAsync = promisify(execFile);

export interface ScanRecord {
  n: number;
  marker: string;
  table: string;
  pid: number;
  /** client-side start and end, ms since the epoch */
  start: number;
  end: number;
  ms: number;
  phase: string;
}

export class ScanDriver {
  readonly scans: ScanRecord[] = [];
  phase = "";
  private client: pg.Client | null = null;
  private stopped = true;
  private loopDone: Promise<void> = Promise.resolve();
  private files = new Map<string, string[]>();
  pid = 0;
  errors: string[] = [];

  constructor(
    private readonly url: string,
    private readonly dataDir: string,
    /** scanned in turn */
    private readonly tables: string[],
    private readonly runId: string,
    /** pause after each scan: uniform in [min, max] ms, so no sampler phase-locks to the scans */
    private readonly pauseMs: [number, number] = [300, 900],
  ) {}

  async open(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: "bench-scans" });
    client.on("error", (err) => this.errors.push(err.message));
    await client.connect();
    this.client = client;
    this.pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
    // one backend reads: parallel workers would split the scan across pids
    await client.query("SET max_parallel_workers_per_gather = 0");
    for (const table of this.tables) {
      const { rows } = await client.query<{ path: string }>("SELECT pg_relation_filepath($1::regclass) AS path", [table]);
      const base = path.join(this.dataDir, rows[0].path);
      const files: string[] = [];
      for (let seg = 0; ; seg++) {
        const file = seg === 0 ? base : `${base}.${seg}`;
        if (!existsSync(file)) break;
        files.push(file);
      }
      this.files.set(table, files);
    }
    // only clean pages leave the page cache
    await client.query("CHECKPOINT");
  }

  async evict(table: string): Promise<void> {
    for (const file of this.files.get(table) ?? []) await execFileAsync("dd", [`if=${file}`, "iflag=nocache", "count=0"]);
  }

  /** One cold scan; returns its record. */
  async scanOnce(): Promise<ScanRecord> {
    const client = this.client!;
    const n = this.scans.length + 1;
    const table = this.tables[n % this.tables.length];
    await this.evict(table);
    const marker = `bench-scan ${this.runId}-${String(n).padStart(4, "0")}`;
    const start = Date.now();
    const t0 = performance.now();
    await client.query(`/* ${marker} */ SELECT count(*), avg(reading) FROM ${table} WHERE payload LIKE '%zz%'`);
    const ms = performance.now() - t0;
    const rec: ScanRecord = { n, marker, table, pid: this.pid, start, end: Date.now(), ms, phase: this.phase };
    this.scans.push(rec);
    return rec;
  }
  /** Scans until stop(); `limit` ends the loop after that many scans of this call. */
  start(limit = Infinity): Promise<void> {
    this.stopped = false;
    this.loopDone = (async () => {
      let done = 0;
      while (!this.stopped && done < limit) {
        try {
          await this.scanOnce();
          done++;
        } catch (err) {
          this.errors.push((err as Error).message);
          await sleep(1000);
        }
        if (this.stopped) break;
        const [lo, hi] = this.pauseMs;
        await sleep(lo + Math.random() * (hi - lo));
      }
    })();
    return this.loopDone;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loopDone;
  }

  async close(): Promise<void> {
    await this.stop();
    await this.client?.end().catch(() => undefined);
  }
}
