import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { KeyedRows } from "./samples-db.mjs";

// The main thread's side of the history's writer (samples-writer.mjs,
// a worker_thread): batches are posted, and each answer comes back as a
// promise. The worker's file is loaded from the project folder on disk
// (scripts/start.mjs runs there; so do the tests), as it is: Turbopack
// would otherwise make a chunk of it (turbopackIgnore), whose imports then
// resolve as the bundler's, not as this plain file's. It runs with the
// react-server condition, as Next's server code does ("server-only" is
// empty there).

export interface WriterConfig {
  file: string;
  retentionMs: number;
  maxBytes: number;
  /** how long a write waits for another connection's lock before it fails */
  lockWaitMs: number;
  pruneEveryMs: number;
}

/** What the worker says of a batch: written or not, the cap's new oldest time, what went wrong. */
export interface WriteAck {
  written: boolean;
  capped: number | null;
  error: { code?: string; message: string } | null;
}

export class SampleWriter {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, (ack: WriteAck) => void>();

  constructor(private readonly config: WriterConfig) {}

  /** Posts a batch (the worker is started on the first); resolves with the worker's answer, or a lost worker's. */
  write(batch: KeyedRows[], now: number): Promise<WriteAck> {
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.postMessage({ type: "write", id, now, batch });
    });
  }

  /** Ends the worker once what was posted is written; false when it did not within `timeoutMs` (it is stopped, those batches unwritten). */
  async close(timeoutMs: number): Promise<boolean> {
    const worker = this.worker;
    if (!worker) return true;
    const exited = new Promise<boolean>((resolve) => worker.once("exit", () => resolve(true)));
    worker.postMessage({ type: "close" });
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([exited, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))]);
    clearTimeout(timer);
    if (!done) {
      await worker.terminate();
      this.lost(worker, new Error(`the writer did not finish within ${timeoutMs} ms of the stop`));
    }
    this.worker = null;
    return done;
  }

  private spawn(): Worker {
    const worker = new Worker(path.join(/* turbopackIgnore: true */ process.cwd(), "lib", "server", "history", "samples-writer.mjs"), {
      workerData: this.config,
      execArgv: ["--conditions=react-server"],
    });
    // Never what keeps the process up: a stop closes it (close()).
    worker.unref();
    worker.on("message", ({ id, ...ack }: WriteAck & { id: number }) => {
      const resolve = this.waiting.get(id);
      this.waiting.delete(id);
      resolve?.(ack);
    });
    worker.on("error", (err) => this.lost(worker, err));
    worker.on("exit", (code) => this.lost(worker, new Error(`the samples writer exited (code ${code})`)));
    return worker;
  }

  /** A worker that failed or exited: what it had not answered is unwritten, with why; the next batch starts another. */
  private lost(worker: Worker, err: Error & { code?: string }): void {
    // Its "error" and then its "exit": answered once.
    if (this.worker !== worker) return;
    this.worker = null;
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const resolve of waiting) resolve({ written: false, capped: null, error: { code: err.code, message: err.message } });
  }
}
