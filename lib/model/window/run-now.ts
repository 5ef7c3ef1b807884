// What a running query does now: the wait keys of its last few samples
// ("IO:AioIoCompletion", "CPU"), counted (pure).

/** A run's "now" is what its last this many samples waited on. */
const NOW_SAMPLES = 10;

/** Adds a sample's wait key to a run's last few, dropping the oldest. */
export function noteWait(recent: string[], key: string): void {
  recent.push(key);
  if (recent.length > NOW_SAMPLES) recent.shift();
}

/** The last few samples' wait keys, counted. */
export function countOf(keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}
