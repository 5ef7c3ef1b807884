import "server-only";

// How many SSE streams are open, in all and per client address. Every open
// stream costs this process a socket and a write per event; past the caps
// a new one is refused before it starts (the browser's EventSource then
// retries on its own), so the viewers already connected, the JSON routes
// and the collectors' own timers keep their share of the event loop.

/** The browser's EventSource cannot read Retry-After, but tools can: about when a slot frees up. */
const RETRY_AFTER_S = 5;

export type Refused = { refused: "server" | "client"; retryAfterS: number };
export type Admission = { release: () => void } | Refused;

export class StreamLimits {
  private open = 0;
  private byClient = new Map<string, number>();
  /** streams refused since the start, by which cap */
  readonly refused = { server: 0, client: 0 };

  constructor(
    readonly max: number,
    readonly perClient: number,
  ) {}

  get count(): number {
    return this.open;
  }

  /** Which cap a new stream from `client` would meet now, if any (nothing is counted). */
  full(client: string): Refused | null {
    if ((this.byClient.get(client) ?? 0) >= this.perClient) return { refused: "client", retryAfterS: RETRY_AFTER_S };
    if (this.open >= this.max) return { refused: "server", retryAfterS: RETRY_AFTER_S };
    return null;
  }

  /** The HTTP error for a refusal (the stream route's and the early one's). */
  error(refusal: Refused): { code: "too_many_requests" | "busy"; message: string } {
    return refusal.refused === "client"
      ? {
          code: "too_many_requests",
          message: `this address has ${this.perClient} streams open, the most it may (INFLIGHT_MAX_STREAMS_PER_CLIENT)`,
        }
      : { code: "busy", message: `${this.max} streams are open, the most this server takes (INFLIGHT_MAX_STREAMS)` };
  }

  admit(client: string): Admission {
    const refusal = this.full(client);
    if (refusal) {
      this.refused[refusal.refused]++;
      return refusal;
    }
    const mine = this.byClient.get(client) ?? 0;
    this.open++;
    this.byClient.set(client, mine + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.open--;
        const left = (this.byClient.get(client) ?? 1) - 1;
        if (left > 0) this.byClient.set(client, left);
        else this.byClient.delete(client);
      },
    };
  }
}
