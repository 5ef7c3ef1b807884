// A minimal SSE viewer of GET /api/targets/{id}/stream: notes when each tick
// arrives (Date.now(), the same clock as tick.t on this machine).
import http from "node:http";

export interface TickArrival {
  seq: number;
  /** sample time (tick.t), ms */
  t: number;
  /** arrival at this client, ms */
  at: number;
  /** async handles in flight in the tick */
  inFlight: number;
  /** a burst's sample, between the slots (tick.extra) */
  extra?: true;
  /** pids of runs with async handles in flight */
  aioPids?: number[];
}

export interface SseOptions {
  /** keep pids of runs with async reads in flight (figure 7 cross-check) */
  keepRuns?: boolean;
}

export class SseViewer {
  readonly ticks: TickArrival[] = [];
  private req: http.ClientRequest | null = null;
  private buffer = "";
  closed = false;
  error: string | null = null;

  constructor(
    private readonly url: string,
    private readonly opts: SseOptions = {},
  ) {}

  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = http.get(this.url, { headers: { Accept: "text/event-stream" }, agent: false }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`stream answered ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => this.onData(chunk, Date.now()));
        res.on("end", () => (this.closed = true));
        res.on("error", (err) => {
          this.error = err.message;
          this.closed = true;
        });
        resolve();
      });
      req.on("error", (err) => {
        this.error = err.message;
        this.closed = true;
        reject(err);
      });
      this.req = req;
    });
  }

  close(): void {
    this.closed = true;
    this.req?.destroy();
  }

  /** bytes received, by event name */
  readonly bytes = new Map<string, number>();
  private scanFrom = 0;

  private onData(chunk: string, at: number): void {
    this.buffer += chunk;
    let end: number;
    // search only the new text (and one char back, for a "\n\n" split across chunks)
    while ((end = this.buffer.indexOf("\n\n", Math.max(0, this.scanFrom - 1))) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      this.scanFrom = 0;
      // the server writes "event: <name>" first; only ticks are parsed
      const name = block.startsWith("event: ") ? block.slice(7, block.indexOf("\n") >>> 0) : "(other)";
      this.bytes.set(name, (this.bytes.get(name) ?? 0) + block.length + 2);
      if (name !== "tick") continue;
      const dataAt = block.indexOf("\ndata: ");
      if (dataAt < 0) continue;
      try {
        const tick = JSON.parse(block.slice(dataAt + 7)) as {
          seq: number;
          t: number;
          extra?: true;
          aio: { inFlight: number };
          runs: { id: string; inFlight: number }[];
        };
        const rec: TickArrival = {
          seq: tick.seq,
          t: tick.t,
          at,
          inFlight: tick.aio.inFlight,
          ...(tick.extra ? { extra: true as const } : {}),
        };
        if (this.opts.keepRuns) {
          const pids = tick.runs.filter((r) => r.inFlight > 0).map((r) => Number(r.id.split(":")[0]));
          if (pids.length) rec.aioPids = pids;
        }
        this.ticks.push(rec);
      } catch {
        // not a tick we can read; ignore
      }
    }
    this.scanFrom = this.buffer.length;
  }

  /** Ticks whose arrival lies in [from, to]. */
  between(from: number, to: number): TickArrival[] {
    return this.ticks.filter((k) => k.at >= from && k.at <= to);
  }
}
