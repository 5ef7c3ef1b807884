// Figure 12 as Markdown (BENCH_ONLY=pgws logs it; BENCHMARKS.md quotes it):
// per server size, one row per collector: its server time, the wait samples
// a second of scan, and how many of the bench's own scans it has a run of.
import type { Json } from "../phases/context";

const NAMES: Record<string, string> = {
  ext: "pg_wait_sampling as shipped (polls at 4/s, runs from the profile)",
  ext10: "pg_wait_sampling, polls at 10/s",
  polls: "polls alone at 10/s",
};

interface SideFigures {
  msPerSecond: number;
  worst20s: { msPerSecond: number } | null;
  sampleMs: number;
  pollsPerSecond: number;
  scans: number;
  runs: number;
  scansOver100ms: number;
  runsOver100ms: number;
  fromProfile: number;
  samplesPerScanSecond: number | null;
  readShare: number | null;
  verdicts: Record<string, number>;
}

const fmt = (n: number | null | undefined, digits = 2) => (n === null || n === undefined || Number.isNaN(n) ? "-" : n.toFixed(digits));

/** One size's table; `span`: fig12.small or fig12.big. */
export function fig12Table(span: Json): string {
  const sides = span.sides as Record<string, SideFigures>;
  const any = Object.values(sides)[0];
  const head = `| ${String(span.label)}, ${fmt(span.seconds as number, 0)} s, ${any?.scans ?? 0} scans (median ${fmt((span.sides as Record<string, Json>).ext?.scanMsP50 as number, 0)} ms) | polls every | server ms/s | worst 20 s | samples a second | runs of the scans (of those ≥ 100 ms) | from the profile | async | read share |`;
  const rows = Object.entries(sides).map(
    ([side, f]) =>
      `| ${NAMES[side] ?? side} | ${f.sampleMs} ms | ${fmt(f.msPerSecond)} | ${fmt(f.worst20s?.msPerSecond)} | ${fmt(f.samplesPerScanSecond, 1)} | ${f.runs} of ${f.scans} (${f.runsOver100ms} of ${f.scansOver100ms}) | ${f.fromProfile} | ${f.verdicts.async ?? 0} | ${fmt(f.readShare, 3)} |`,
  );
  return [head, "|---|---|---|---|---|---|---|---|---|", ...rows].join("\n");
}

export function fig12Tables(fig12: Json): string {
  return [fig12.small, fig12.big]
    .filter(Boolean)
    .map((s) => fig12Table(s as Json))
    .join("\n\n");
}
