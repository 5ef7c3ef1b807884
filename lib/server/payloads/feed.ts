import "server-only";
import { STATE_EVENTS, type StateEventName, type StreamEventName, type StreamPayload } from "../../schemas/window";
import { formatEvent } from "./sse";

/** One viewer's end of the feed: it gets each event's bytes, encoded once for all. */
export type FeedListener = (bytes: Uint8Array) => void;

const encoder = new TextEncoder();
const isState = (event: StreamEventName): event is StateEventName => (STATE_EVENTS as readonly string[]).includes(event);

/**
 * Fan-out of one target's events to whoever watches it. Every event is
 * serialised and encoded once, however many viewers get it, and the latest
 * of each state event (target, settings, queries, outages) is kept encoded,
 * so a new viewer starts from the same bytes as everyone else. One collector
 * serves every viewer: the target's load never grows with them.
 */
export class Feed {
  private listeners = new Set<FeedListener>();
  /** encoded, or (a state sent as changes) to be encoded when a new viewer asks */
  private latest = new Map<StateEventName, Uint8Array | (() => Uint8Array)>();
  /** replayed ticks and io samples, encoded once per object (the window holds them) */
  private replayed = new WeakMap<object, Uint8Array>();
  /** called when the number of viewers goes from 0 to 1 or back (the cadence follows it) */
  onViewersChange: (() => void) | null = null;

  get viewers(): number {
    return this.listeners.size;
  }

  /** Encodes an event once: ticks and io carry their seq as the SSE id. */
  encode<E extends StreamEventName>(event: E, payload: StreamPayload<E>): Uint8Array {
    const seq = event === "tick" || event === "io" ? (payload as { seq: number }).seq : undefined;
    return encoder.encode(formatEvent({ event, id: seq, data: payload }));
  }

  publish<E extends StreamEventName>(event: E, payload: StreamPayload<E>): void {
    if (this.listeners.size === 0 && !isState(event)) return;
    const bytes = this.encode(event, payload);
    if (isState(event)) this.latest.set(event, bytes);
    if (event === "tick" || event === "io") this.replayed.set(payload as object, bytes);
    this.send(bytes);
  }

  private send(bytes: Uint8Array): void {
    for (const listener of this.listeners) {
      try {
        listener(bytes);
      } catch {
        // A viewer that cannot take an event (its stream closed) is dropped
        // by its own cancel path; the others still get it.
      }
    }
  }

  /**
   * A state event whose viewers get only what changed (`changes`, an event
   * that is not state), while a new viewer gets the whole state `full`: it is
   * encoded only when one arrives, so a state nobody newly asks for costs
   * no serialisation.
   */
  publishChanges<E extends StateEventName, C extends StreamEventName>(
    event: E,
    full: StreamPayload<E>,
    changes: C,
    payload: StreamPayload<C>,
  ): void {
    let bytes: Uint8Array | null = null;
    this.latest.set(event, () => (bytes ??= this.encode(event, full)));
    if (this.listeners.size === 0) return;
    this.send(this.encode(changes, payload));
  }

  /** The latest encoded state events, in STATE_EVENTS order. */
  stateFrames(): Uint8Array[] {
    return STATE_EVENTS.flatMap((e) => {
      const frame = this.latest.get(e);
      return frame === undefined ? [] : typeof frame === "function" ? frame() : frame;
    });
  }

  /** A tick or io sample kept in the window, encoded once for every viewer that replays it. */
  replayFrame(event: "tick" | "io", payload: StreamPayload<"tick"> | StreamPayload<"io">): Uint8Array {
    let bytes = this.replayed.get(payload);
    if (!bytes) {
      bytes = this.encode(event, payload);
      this.replayed.set(payload, bytes);
    }
    return bytes;
  }

  subscribe(listener: FeedListener): () => void {
    const wasIdle = this.listeners.size === 0;
    this.listeners.add(listener);
    if (wasIdle) this.onViewersChange?.();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.onViewersChange?.();
    };
  }
}
