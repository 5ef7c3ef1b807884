import "server-only";
import type { Collector } from "./collector/collector";
import type { HubListener } from "./collector/hub";
import { redactRuns } from "./snapshot";
import type { StreamEventName } from "./schemas/window";
import { formatComment, formatEvent, formatRetry } from "./sse";

const HEARTBEAT_MS = 15_000;
/** A viewer this far behind is dropped; it reconnects and replays. */
const MAX_QUEUED_CHUNKS = 5000;

const encoder = new TextEncoder();
/** An event is serialised and encoded once, however many viewers get it:
 * with 50 viewers, per-viewer JSON.stringify took a quarter of a core. */
const encodedPlain = new WeakMap<object, Uint8Array>();
const encodedRedacted = new WeakMap<object, Uint8Array>();

function frame(event: StreamEventName, payload: object, redact: boolean): string {
  if (event === "tick" || event === "io") return formatEvent({ event, id: (payload as { seq: number }).seq, data: payload });
  if (event === "queries" && redact) {
    const p = payload as { queries: Parameters<typeof redactRuns>[0]; statements: Parameters<typeof redactRuns>[1] };
    return formatEvent({ event, data: { ...p, queries: redactRuns(p.queries, p.statements) } });
  }
  return formatEvent({ event, data: payload });
}

function encodeEvent(event: StreamEventName, payload: object, redact: boolean): Uint8Array {
  const cache = redact && event === "queries" ? encodedRedacted : encodedPlain;
  let bytes = cache.get(payload);
  if (!bytes) {
    bytes = encoder.encode(frame(event, payload, redact));
    cache.set(payload, bytes);
  }
  return bytes;
}

/**
 * The SSE body for one viewer: current state, then what it missed after
 * `since` (from the window), then every new event. Subscribing and replaying
 * happen in one synchronous step, so nothing is missed or sent twice.
 */
export function streamFor(collector: Collector, since: number | null, redact: boolean, signal: AbortSignal): ReadableStream<Uint8Array> {
  let cleanup: (() => void) | null = null;

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let closed = false;
        const send = (chunk: string | Uint8Array) => {
          if (closed) return;
          if ((controller.desiredSize ?? 0) < -MAX_QUEUED_CHUNKS) return close();
          controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
        };
        const close = () => {
          if (closed) return;
          closed = true;
          cleanup?.();
          try {
            controller.close();
          } catch {
            // already closed by the client going away
          }
        };

        const listener: HubListener = (event, payload) => send(encodeEvent(event, payload as object, redact));

        const w = collector.window;
        send(formatRetry(1000));
        const unsubscribe = collector.hub.subscribe(listener);
        listener("target", collector.info());
        listener("settings", { settings: w.settings, checks: w.checks, restarts: w.restarts });
        listener("queries", collector.queriesPayload());
        listener("outages", { outages: w.outages });
        if (since !== null) {
          if (since > w.lastSeq) {
            // The client's seq is from an earlier inflight process: start over.
            send(formatEvent({ event: "reset", data: { lastSeq: w.lastSeq } }));
          } else {
            const replay = [...w.ticksSince(since).map((t) => ["tick", t] as const), ...w.ioSince(since).map((s) => ["io", s] as const)];
            replay.sort((a, b) => a[1].seq - b[1].seq);
            for (const [event, payload] of replay) listener(event, payload);
          }
        }
        const heartbeat = setInterval(() => send(formatComment("ping")), HEARTBEAT_MS);
        cleanup = () => {
          clearInterval(heartbeat);
          unsubscribe();
          signal.removeEventListener("abort", close);
        };
        signal.addEventListener("abort", close);
        if (signal.aborted) close();
      },
      cancel() {
        cleanup?.();
      },
    },
    { highWaterMark: 1 },
  );
}
