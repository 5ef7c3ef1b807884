// The SSE stream of one target into a LiveStore. Every payload is parsed with
// the schema the server built it with; a bad one is reported, never applied.
import { StreamEvents, type StreamEventName, type StreamPayload } from "@/lib/schemas/window";
import { targetPath } from "./api";
import type { LiveStore } from "./store";

/** The events applied to the store; `reset` is not data but an order to reload. */
export type DataEventName = Exclude<StreamEventName, "reset">;
export const DATA_EVENT_NAMES = (Object.keys(StreamEvents) as StreamEventName[]).filter((n): n is DataEventName => n !== "reset");

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

/** A named payload parsed with its wire schema, or why it does not parse. */
export function parseEvent<E extends StreamEventName>(
  name: E,
  data: string,
): { ok: true; payload: StreamPayload<E> } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return { ok: false, error: `${name}: not JSON` };
  }
  const parsed = StreamEvents[name].safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `${name}: ${issue?.path.join(".") || "payload"} ${issue?.message ?? "does not parse"}` };
  }
  return { ok: true, payload: parsed.data as StreamPayload<E> };
}

/** Applies one named payload to the store; returns an error message when it does not parse. */
export function applyEvent(store: LiveStore, name: DataEventName, data: string): string | null {
  const parsed = parseEvent(name, data);
  if (!parsed.ok) return parsed.error;
  if (name === "tick") store.addTick(parsed.payload as StreamPayload<"tick">);
  else if (name === "io") store.addIo(parsed.payload as StreamPayload<"io">);
  else if (name === "queries-changes") {
    const changes = parsed.payload as StreamPayload<"queries-changes">;
    if (!store.applyQueriesChanges(changes))
      return `queries-changes: made against the runs of ${changes.base}, the page has those of ${store.get("queries").asOf}`;
  } else store.apply(name, parsed.payload as never);
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
    for (const name of DATA_EVENT_NAMES) {
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
      // Reload whatever the payload says: the seq is from another process anyway.
      const parsed = parseEvent("reset", String(ev.data));
      if (!parsed.ok) console.error(`inflight stream: ${parsed.error}`);
      stop();
      store.setStream("reconnecting", now(), "inflight restarted; reloading the window");
      opts.onReset();
    });
  };

  open();
  return { close: stop };
}
