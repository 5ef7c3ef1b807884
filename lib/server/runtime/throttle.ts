import "server-only";

// A pause after each wrong token, per client address, so that guessing the
// token is slow: checks from one client run one at a time, the next only
// after the pause, which doubles with each failure in a row (100 ms, 200 ms
// ... up to 2 s). A right token clears it. A client already waiting for
// MAX_WAITING checks gets a 429 without its token being looked at.

const FIRST_PAUSE_MS = 100;
const MAX_PAUSE_MS = 2000;
const MAX_WAITING = 8;
/** A client with no failure for this long is forgotten. */
const FORGET_MS = 60_000;
const MAX_CLIENTS = 10_000;

interface ClientState {
  failures: number;
  /** no check of this client runs before this time (ms) */
  readyAt: number;
  waiting: number;
}

export type CheckResult = { ok: boolean } | { busy: true; retryAfterS: number };

export class FailureThrottle {
  private clients = new Map<string, ClientState>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Runs `check` (synchronous, so that its outcome is recorded before any
   * other check of this client can start) once this client's pause is over.
   */
  async check(client: string, check: () => boolean): Promise<CheckResult> {
    const state = this.clients.get(client);
    if (state) {
      if (state.waiting >= MAX_WAITING) return { busy: true, retryAfterS: Math.max(1, Math.ceil((state.readyAt - this.now()) / 1000)) };
      state.waiting++;
      try {
        // Woken together, the first to run may fail and push readyAt on: look again.
        for (let wait = state.readyAt - this.now(); wait > 0; wait = state.readyAt - this.now()) {
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      } finally {
        state.waiting--;
      }
    }
    const ok = check();
    if (ok) this.succeeded(client);
    else this.failed(client);
    return { ok };
  }

  private failed(client: string): void {
    const now = this.now();
    this.forgetOld(now);
    const state = this.clients.get(client) ?? { failures: 0, readyAt: now, waiting: 0 };
    state.failures++;
    state.readyAt = now + Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (state.failures - 1));
    this.clients.delete(client);
    this.clients.set(client, state);
  }

  private succeeded(client: string): void {
    const state = this.clients.get(client);
    if (!state) return;
    state.failures = 0;
    state.readyAt = this.now();
    if (state.waiting === 0) this.clients.delete(client);
  }

  /** Oldest first (a failure moves its client to the end): drop the quiet ones, and the oldest past MAX_CLIENTS. */
  private forgetOld(now: number): void {
    for (const [client, state] of this.clients) {
      const stale = state.waiting === 0 && state.readyAt + FORGET_MS < now;
      if (!stale && this.clients.size < MAX_CLIENTS) break;
      this.clients.delete(client);
    }
  }
}
