import "server-only";
import type { QueryName } from "../pg/queries";

/** Buckets of the sampling statement's round trip, in seconds (Prometheus histogram). */
export const SAMPLE_DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1] as const;
const RATE_SPAN_MS = 10_000;

/**
 * What a collector counts about its own work: samples taken and missed,
 * the achieved rate, and each statement's round trips. Read by /metrics and
 * the target payload; written only by the collector.
 */
export class CollectorStats {
  /** samples taken in their slots */
  samples = 0;
  missed = 0;
  /** samples taken between the slots (a burst when a statement started) */
  extraSamples = 0;
  private recent: number[] = [];
  /** cumulative counts per SAMPLE_DURATION_BUCKETS bound, then +Inf */
  readonly durationBuckets = new Array<number>(SAMPLE_DURATION_BUCKETS.length + 1).fill(0);
  durationSum = 0;
  durationCount = 0;
  /** per statement: calls and total round-trip ms */
  readonly statements = new Map<QueryName, { calls: number; ms: number }>();

  sampled(t: number): void {
    this.samples++;
    this.recent.push(t);
    if (this.recent.length > 2000) this.recent.splice(0, 1000);
  }

  miss(n = 1): void {
    this.missed += n;
  }

  sampleDuration(seconds: number): void {
    this.durationSum += seconds;
    this.durationCount++;
    const i = SAMPLE_DURATION_BUCKETS.findIndex((b) => seconds <= b);
    for (let j = i === -1 ? SAMPLE_DURATION_BUCKETS.length : i; j < this.durationBuckets.length; j++) this.durationBuckets[j]++;
  }

  statement(name: QueryName, ms: number): void {
    const s = this.statements.get(name) ?? { calls: 0, ms: 0 };
    s.calls++;
    s.ms += ms;
    this.statements.set(name, s);
  }

  /** Samples per second over the last 10 s (over less right after the start). */
  achievedHz(now: number): number {
    const since = now - RATE_SPAN_MS;
    let n = 0;
    for (let i = this.recent.length - 1; i >= 0 && this.recent[i] > since; i--) n++;
    const span = Math.min(RATE_SPAN_MS, Math.max(1000, now - (this.recent[0] ?? now)));
    return Math.round((n / span) * 10_000) / 10;
  }
}
