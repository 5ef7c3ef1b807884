import "server-only";
import type { StreamEventName, StreamPayload } from "../schemas/window";

export type HubListener = <E extends StreamEventName>(event: E, payload: StreamPayload<E>) => void;

/**
 * Fan-out of one collector's events to whoever watches its target. One
 * collector serves every viewer: the target's load never grows with them.
 */
export class Hub {
  private listeners = new Set<HubListener>();
  /** called when the number of viewers changes (the cadence follows it) */
  onViewersChange: (() => void) | null = null;

  get viewers(): number {
    return this.listeners.size;
  }

  subscribe(listener: HubListener): () => void {
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

  publish<E extends StreamEventName>(event: E, payload: StreamPayload<E>): void {
    for (const listener of this.listeners) {
      try {
        listener(event, payload);
      } catch {
        // A viewer that cannot take an event (its stream closed) is dropped
        // by its own cancel path; the others still get it.
      }
    }
  }
}
