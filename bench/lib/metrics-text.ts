// Figures read from an inflight server's /metrics (Prometheus text format):
// the burst samples (inflight_samples_extra_total, which /api/targets does
// not count) and what the server says each statement cost it
// (inflight_target_cost_seconds_total{statement}).

/** `name{labels} value` lines of one family, labels parsed; comments and other families left out. */
export function metricSamples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const out: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ labels, value: Number(m[4]) });
  }
  return out;
}

/** The sum of a family's samples whose labels include `match`; null when it has none. */
export function metricSum(text: string, name: string, match: Record<string, string> = {}): number | null {
  const hits = metricSamples(text, name).filter((s) => Object.entries(match).every(([k, v]) => s.labels[k] === v));
  return hits.length ? hits.reduce((n, s) => n + s.value, 0) : null;
}

/** A labelled counter by one label's value (e.g. cost seconds by statement). */
export function metricBy(text: string, name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of metricSamples(text, name))
    if (s.labels[label] !== undefined) out[s.labels[label]] = (out[s.labels[label]] ?? 0) + s.value;
  return out;
}
