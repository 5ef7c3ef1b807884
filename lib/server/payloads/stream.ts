import "server-only";
import type { TargetWindow } from "../../model/window/window";
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

/** Where one viewer's events go: a web stream's controller, or a Node response (lib/server/http/direct-stream.ts). */
export interface StreamSink {
  write(chunk: Uint8Array): void;
  /** bytes written and not yet taken by the viewer's socket */
  queuedBytes(): number;
  end(): void;
}

/**
 * One viewer's events into `sink`: the latest state events, then what it
 * missed after `since` (from the window), then every new event. Sending the
 * state, replaying and subscribing happen in one synchronous step, so nothing
 * is missed or sent twice. A replay longer than MAX_QUEUED_BYTES is sent up to
 * there and the stream ends: the browser reconnects from the last id it got
 * and is sent the rest; so does a viewer that falls that far behind. Returns
 * the stream's end, which the caller runs when the viewer goes away; it runs
 * `release` once, however the stream ends.
 */
export function openStream(
  source: StreamSource,
  since: number | null,
  sink: StreamSink,
  release: () => void = () => undefined,
): () => void {
  let closed = false;
  let unsubscribe: () => void = () => undefined;
  let heartbeat: NodeJS.Timeout | null = null;
  const finish = () => {
    if (closed) return;
    closed = true;
    if (heartbeat) clearInterval(heartbeat);
    unsubscribe();
    release();
    sink.end();
  };
  const send = (chunk: Uint8Array) => {
    if (closed) return;
    if (sink.queuedBytes() > MAX_QUEUED_BYTES) return finish();
    sink.write(chunk);
  };

  const { feed, window: w } = source;
  send(RETRY);
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
  // The state after the ticks it missed: the findings' and runs' moment is a tick the page has.
  for (const frame of feed.stateFrames()) send(frame);
  if (closed) return finish;
  unsubscribe = feed.subscribe(send);
  heartbeat = setInterval(() => send(encoder.encode(formatComment("ping"))), HEARTBEAT_MS);
  return finish;
}

/** The SSE body for one viewer as a web stream (a route handler's Response): openStream into its controller. */
export function streamFor(
  source: StreamSource,
  since: number | null,
  signal: AbortSignal,
  release: () => void = () => undefined,
): ReadableStream<Uint8Array> {
  let finish: () => void = () => undefined;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const sink: StreamSink = {
          write: (chunk) => controller.enqueue(chunk),
          // desiredSize is the high-water mark less the bytes queued (the strategy counts bytes).
          queuedBytes: () => -(controller.desiredSize ?? 0),
          end: () => {
            signal.removeEventListener("abort", finish);
            try {
              controller.close();
            } catch {
              // already closed by the client going away
            }
          },
        };
        finish = openStream(source, since, sink, release);
        if (signal.aborted) finish();
        else signal.addEventListener("abort", finish);
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
}
