import "server-only";
import type { TargetWindow } from "../../window/window";
import type { Feed } from "./feed";
import { formatComment, formatEvent, formatRetry } from "./sse";

const HEARTBEAT_MS = 15_000;
/**
 * Bytes waiting for one viewer's socket: past this the viewer is dropped
 * (it reconnects with Last-Event-ID and replays from the window). The bytes
 * are the feed's, shared by every viewer (each event is encoded once), so
 * all slow viewers together hold at most about this much besides the window.
 */
export const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

const encoder = new TextEncoder();
/** The reconnect delay a browser is told, the same bytes for every viewer. */
const RETRY = encoder.encode(formatRetry(1000));

export interface StreamSource {
  readonly feed: Feed;
  readonly window: Pick<TargetWindow, "lastSeq" | "ticksSince" | "ioSince">;
}

/**
 * The SSE body for one viewer: the latest state events, then what it missed
 * after `since` (from the window), then every new event. Sending the state,
 * replaying and subscribing happen in one synchronous step, so nothing is
 * missed or sent twice. A replay longer than MAX_QUEUED_BYTES is sent up to
 * there and the stream ends: the browser reconnects from the last id it
 * got and is sent the rest. `release` runs once when the stream ends, however
 * it ends.
 */
export function streamFor(source: StreamSource, since: number | null, signal: AbortSignal, release: () => void = () => undefined): ReadableStream<Uint8Array> {
  let finish: () => void = () => undefined;

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let closed = false;
        let unsubscribe: () => void = () => undefined;
        let heartbeat: NodeJS.Timeout | null = null;
        finish = () => {
          if (closed) return;
          closed = true;
          if (heartbeat) clearInterval(heartbeat);
          unsubscribe();
          signal.removeEventListener("abort", finish);
          release();
          try {
            controller.close();
          } catch {
            // already closed by the client going away
          }
        };
        const send = (chunk: Uint8Array) => {
          if (closed) return;
          // desiredSize is the high-water mark less the bytes queued (the strategy counts bytes).
          if (-(controller.desiredSize ?? 0) > MAX_QUEUED_BYTES) return finish();
          controller.enqueue(chunk);
        };
        signal.addEventListener("abort", finish);

        const { feed, window: w } = source;
        send(RETRY);
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
        if (closed || signal.aborted) return finish();
        unsubscribe = feed.subscribe(send);
        heartbeat = setInterval(() => send(encoder.encode(formatComment("ping"))), HEARTBEAT_MS);
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
}
