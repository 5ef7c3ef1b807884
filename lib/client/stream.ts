// The SSE stream of one target into a LiveStore. Every payload is parsed with
// the schema the server built it with; a bad one is reported, never applied.
import { z } from "zod";
import { StreamEvents, type StreamEventName } from "@/lib/schemas/window";
import { targetPath } from "./api";
import type { LiveStore } from "./live-store";

/** Sent when the client's seq is from an earlier server process: refetch the window. */
export const ResetPayload = z.object({ lastSeq: z.number() });

export const STREAM_EVENT_NAMES = Object.keys(StreamEvents) as StreamEventName[];

/** The part of EventSource this module uses (a fake in tests). */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((ev: Event) => unknown) | null;
  onerror: ((ev: Event) => unknown) | null;
  addEventListener(type: string, listener: (ev: MessageEvent) => void): void;
  close(): void;
}

export interface StreamOptions {
  /** the server restarted: reload the snapshot, then connect again */
  onReset: () => void;
  create?: (url: string) => EventSourceLike;
  now?: () => number;
  /** wait before reopening a stream the browser gave up on (HTTP error) */
  retryMs?: number;
}

const CLOSED = 2;

export function streamUrl(id: string, since: number): string {
  return `${targetPath(id)}/stream?since=${since}`;
}

/** Applies one named payload to the store; returns an error message when it does not parse. */
export function applyEvent(store: LiveStore, name: StreamEventName, data: string): string | null {
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return `${name}: not JSON`;
  }
  const parsed = StreamEvents[name].safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `${name}: ${issue?.path.join(".") || "payload"} ${issue?.message ?? "does not parse"}`;
  }
  if (name === "tick") store.addTick(parsed.data as z.infer<(typeof StreamEvents)["tick"]>);
  else if (name === "io") store.addIo(parsed.data as z.infer<(typeof StreamEvents)["io"]>);
  else store.apply(name, parsed.data as never);
  return null;
}

/**
 * Opens the stream from the store's last seq. The browser reconnects on its
 * own and resends Last-Event-ID; when it gives up (an HTTP error), this
 * reopens after retryMs from where the store is.
 */
export function connectStream(id: string, store: LiveStore, opts: StreamOptions): { close(): void } {
  const create = opts.create ?? ((url: string) => new EventSource(url));
  const now = opts.now ?? Date.now;
  const retryMs = opts.retryMs ?? 2000;
  let source: EventSourceLike | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let closed = false;
  let opened = false;

  const stop = () => {
    closed = true;
    if (timer) clearTimeout(timer);
    source?.close();
  };

  const open = () => {
    if (closed) return;
    store.setStream(opened ? "reconnecting" : "connecting", now(), store.get("stream").error);
    const es = create(streamUrl(id, store.lastSeq));
    source = es;
    es.onopen = () => {
      opened = true;
      store.setStream("live", now());
    };
    es.onerror = () => {
      if (closed || source !== es) return;
      if (es.readyState === CLOSED) {
        es.close();
        store.setStream("reconnecting", now(), "the stream was refused; retrying");
        timer = setTimeout(open, retryMs);
      } else {
        store.setStream("reconnecting", now(), "connection lost; reconnecting");
      }
    };
    for (const name of STREAM_EVENT_NAMES) {
      es.addEventListener(name, (ev) => {
        if (closed || source !== es) return;
        const error = applyEvent(store, name, String(ev.data));
        if (error) {
          console.error(`inflight stream: ${error}`);
          store.setStream(store.get("stream").state, now(), `a ${error}`);
        }
      });
    }
    es.addEventListener("reset", (ev) => {
      if (closed || source !== es) return;
      if (!ResetPayload.safeParse(safeJson(String(ev.data))).success) console.error("inflight stream: reset payload does not parse");
      stop();
      store.setStream("reconnecting", now(), "inflight restarted; reloading the window");
      opts.onReset();
    });
  };

  open();
  return { close: stop };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
