import "server-only";
import { ASPECTS, type Aspect } from "../../schemas/enums";
import type { AspectHealth } from "../../schemas/target";

/** What a read says of its aspect: read, not offered here (and why), or failed. */
export type AspectOutcome = { kind: "read" } | { kind: "unavailable"; why: string } | { kind: "failed"; error: string };

/**
 * The health of each collection aspect (as pganalyze's collector records
 * one per aspect): its state, last error and since when. A good read
 * clears the error; one aspect's failure is never another's.
 */
export class HealthBoard {
  private board = new Map<Aspect, AspectHealth>();

  constructor(now: number) {
    for (const aspect of ASPECTS)
      this.board.set(aspect, { aspect, state: "waiting", since: now, lastError: null, note: null, lastOkAt: null });
  }

  private set(aspect: Aspect, next: Omit<AspectHealth, "aspect" | "since" | "lastOkAt">, now: number, ok: boolean): boolean {
    const cur = this.board.get(aspect)!;
    const changed = cur.state !== next.state || cur.lastError !== next.lastError || cur.note !== next.note;
    this.board.set(aspect, { aspect, ...next, since: cur.state === next.state ? cur.since : now, lastOkAt: ok ? now : cur.lastOkAt });
    return changed;
  }

  /** What a read said of its aspect; returns whether the visible state changed. */
  record(aspect: Aspect, outcome: AspectOutcome, now: number): boolean {
    if (outcome.kind === "unavailable") return this.unavailable(aspect, outcome.why, now);
    if (outcome.kind === "failed") return this.fail(aspect, outcome.error, now);
    return this.ok(aspect, now);
  }

  /** A read worked; returns whether the visible state changed. */
  ok(aspect: Aspect, now: number): boolean {
    return this.set(aspect, { state: "ok", lastError: null, note: null }, now, true);
  }

  fail(aspect: Aspect, error: string, now: number): boolean {
    return this.set(aspect, { state: "failing", lastError: error, note: null }, now, false);
  }

  /** The server or the role does not offer it: not an error, but not data either. */
  unavailable(aspect: Aspect, why: string, now: number): boolean {
    return this.set(aspect, { state: "unavailable", lastError: null, note: why }, now, false);
  }

  /** A new connection: every aspect waits for its first read again, keeping what it knew. */
  waiting(now: number): void {
    for (const aspect of ASPECTS) {
      const cur = this.board.get(aspect)!;
      if (cur.state !== "unavailable") this.board.set(aspect, { ...cur, state: "waiting", since: now });
    }
  }

  get(aspect: Aspect): AspectHealth {
    return this.board.get(aspect)!;
  }

  list(): AspectHealth[] {
    return ASPECTS.map((a) => ({ ...this.board.get(a)! }));
  }
}
