import "server-only";
import type { TargetWindow } from "../../window/window";
import type { Feed } from "./feed";
import { formatComment, formatEvent, formatRetry } from "./sse";

const HEARTBEAT_MS = 15_000;
/** A viewer this far behind is dropped; it reconnects and replays. */
const MAX_QUEUED_CHUNKS = 5000;

const encoder = new TextEncoder();

export interface StreamSource {
  readonly feed: Feed;
  readonly window: TargetWindow;
}

/**
 * The SSE body for one viewer: the latest state events, then what it missed
 * after `since` (from the window), then every new event. Sending the state,
 * replaying and subscribing happen in one synchronous step, so nothing is
 * missed or sent twice.
 */
export function streamFor(source: StreamSource, since: number | null, signal: AbortSignal): ReadableStream<Uint8Array> {
  let cleanup: (() => void) | null = null;

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let closed = false;
        const send = (chunk: Uint8Array) => {
          if (closed) return;
          if ((controller.desiredSize ?? 0) < -MAX_QUEUED_CHUNKS) return close();
          controller.enqueue(chunk);
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

        const { feed, window: w } = source;
        send(encoder.encode(formatRetry(1000)));
        for (const frame of feed.stateFrames()) send(frame);
        if (since !== null) {
          if (since > w.lastSeq) {
            // The client's seq is from an earlier inflight process: start over.
            send(encoder.encode(formatEvent({ event: "reset", data: { lastSeq: w.lastSeq } })));
          } else {
            const replay = [...w.ticksSince(since).map((t) => ["tick", t] as const), ...w.ioSince(since).map((s) => ["io", s] as const)];
            replay.sort((a, b) => a[1].seq - b[1].seq);
            for (const [event, payload] of replay) send(feed.replayFrame(event, payload));
          }
        }
        const unsubscribe = feed.subscribe(send);
        const heartbeat = setInterval(() => send(encoder.encode(formatComment("ping"))), HEARTBEAT_MS);
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
