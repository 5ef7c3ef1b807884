// The soak's look inside its server: Node's inspector (the server runs with
// --inspect=127.0.0.1:0 and says its address on stderr), spoken to over its
// WebSocket, on the main thread and, through NodeWorker, on every worker
// thread (the history's writer is one, with a V8 heap of its own that
// prom-client's heap metrics do not count). HeapProfiler.collectGarbage is
// V8's low-memory collection: full, and the young generation shrunk, so what
// is left is what the process holds, not garbage V8 had yet to collect.
import { rssParts } from "./proc";

/** The inspector's address in the server's output ("Debugger listening on ws://..."); null when it has not said it. */
export function inspectorUrl(output: string): string | null {
  return /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1] ?? null;
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

const CALL_TIMEOUT_MS = 30_000;

export class Inspector {
  private nextId = 0;
  private readonly waiting = new Map<number, (m: Message) => void>();
  /** worker sessions by id, each with its own calls in flight */
  private readonly workers = new Map<string, Map<number, (m: Message) => void>>();

  private constructor(private readonly ws: WebSocket) {
    ws.onmessage = (ev) => this.receive(JSON.parse(String(ev.data)) as Message);
  }

  static async connect(url: string): Promise<Inspector> {
    if (typeof WebSocket === "undefined")
      throw new Error("no WebSocket in this Node (the bench's vitest config asks for --experimental-websocket)");
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error(`the inspector at ${url} did not answer`));
    });
    const inspector = new Inspector(ws);
    // existing workers are announced at once, later ones as they start
    await inspector.call("NodeWorker.enable", { waitForDebuggerOnStart: false });
    return inspector;
  }

  call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = ++this.nextId;
    this.ws.send(JSON.stringify({ id, method, params }));
    return this.answer(this.waiting, id, method);
  }

  /** The same call on every worker thread, in turn. */
  async onWorkers(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (const [sessionId, waiting] of this.workers) {
      const id = ++this.nextId;
      const answer = this.answer(waiting, id, method);
      await this.call("NodeWorker.sendMessageToWorker", { sessionId, message: JSON.stringify({ id, method, params }) });
      out.push(await answer);
    }
    return out;
  }

  close(): void {
    this.ws.close();
  }

  private answer(waiting: Map<number, (m: Message) => void>, id: number, method: string): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the inspector did not answer ${method} in ${CALL_TIMEOUT_MS / 1000} s`));
      }, CALL_TIMEOUT_MS);
      waiting.set(id, (m) => {
        clearTimeout(timer);
        if (m.error) reject(new Error(`${method}: ${m.error.message}`));
        else resolve(m.result ?? {});
      });
    });
  }

  private receive(m: Message): void {
    if (m.id !== undefined) {
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
      return;
    }
    const p = m.params ?? {};
    if (m.method === "NodeWorker.attachedToWorker") this.workers.set(p.sessionId as string, new Map());
    else if (m.method === "NodeWorker.detachedFromWorker") this.workers.delete(p.sessionId as string);
    else if (m.method === "NodeWorker.receivedMessageFromWorker") {
      const waiting = this.workers.get(p.sessionId as string);
      const inner = JSON.parse(p.message as string) as Message;
      if (waiting && inner.id !== undefined) {
        waiting.get(inner.id)?.(inner);
        waiting.delete(inner.id);
      }
    }
  }
}

/** What the process holds right after a full collection of every isolate, bytes. */
export interface SettledMemory {
  rss: number | null;
  /** RSS's anonymous pages (heaps, malloc, stacks); the rest is mapped files (the node binary, libraries) */
  rssAnon: number | null;
  /** the main isolate: process.memoryUsage() */
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** every worker thread's isolate, summed */
  workerHeapUsed: number;
  workerHeapTotal: number;
  workers: number;
  /** what V8's heaps hold of RSS, all isolates */
  v8Physical: number;
}

const MAIN = `JSON.stringify({ mu: process.memoryUsage(), physical: require("v8").getHeapStatistics().total_physical_size })`;
const WORKER = `JSON.stringify(require("v8").getHeapStatistics())`;

async function evaluate(inspector: Inspector, expression: string, onWorkers: boolean): Promise<unknown[]> {
  const params = { expression, includeCommandLineAPI: true, returnByValue: true };
  const answers = onWorkers ? await inspector.onWorkers("Runtime.evaluate", params) : [await inspector.call("Runtime.evaluate", params)];
  return answers.map((a) => JSON.parse((a.result as { value: string }).value) as unknown);
}

/** A full collection on every thread, a second for V8 to give back what it freed, then what is left. */
export async function settledMemory(inspector: Inspector, pid: number): Promise<SettledMemory> {
  await inspector.call("HeapProfiler.collectGarbage");
  await inspector.onWorkers("HeapProfiler.collectGarbage");
  await new Promise((r) => setTimeout(r, 1000));
  const [main] = (await evaluate(inspector, MAIN, false)) as { mu: NodeJS.MemoryUsage; physical: number }[];
  const workers = (await evaluate(inspector, WORKER, true)) as {
    used_heap_size: number;
    total_heap_size: number;
    total_physical_size: number;
  }[];
  const proc = rssParts(pid);
  const sum = (pick: (w: (typeof workers)[number]) => number) => workers.reduce((n, w) => n + pick(w), 0);
  return {
    rss: proc?.rss ?? null,
    rssAnon: proc?.anon ?? null,
    heapUsed: main.mu.heapUsed,
    heapTotal: main.mu.heapTotal,
    external: main.mu.external,
    arrayBuffers: main.mu.arrayBuffers,
    workerHeapUsed: sum((w) => w.used_heap_size),
    workerHeapTotal: sum((w) => w.total_heap_size),
    workers: workers.length,
    v8Physical: main.physical + sum((w) => w.total_physical_size),
  };
}
