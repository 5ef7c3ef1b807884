// Figure 12 as Markdown (BENCH_ONLY=pgws logs it; BENCHMARKS.md quotes it):
// per server size, one row per collector: its server time, the wait samples
// a second of scan, and how many of the bench's own scans it has a run of.
import type { Json } from "../phases/context";
import { fmt, known, verdict, type Row } from "./report-format";

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

/** Issue 44's goals, as the summary table's rows: the extension as shipped against the polls alone on the same server, in one run. */
export function pgwsRows(fig12: Json): Row[] {
  const budget = fig12.budgetMsPerSecond as number;
  const small = ((fig12.small as Json | undefined)?.sides ?? {}) as Record<string, SideFigures>;
  const big = ((fig12.big as Json | undefined)?.sides ?? {}) as Record<string, SideFigures>;
  const ext = small.ext;
  const polls = small.polls;
  const samples = ext?.samplesPerScanSecond ?? null;
  const worst = big.ext?.worst20s?.msPerSecond ?? null;
  return [
    {
      fig: "12",
      what: "wait samples a second per scanning backend and server time, small target: pg_wait_sampling as shipped vs polls alone at 10/s",
      measured: `${fmt(samples, 1)} vs ${fmt(polls?.samplesPerScanSecond, 1)} a second; ${fmt(ext?.msPerSecond)} vs ${fmt(polls?.msPerSecond)} ms/s`,
      goal: ">= 90 a second, at no more server time",
      verdict: verdict(
        known(samples, ext?.msPerSecond, polls?.msPerSecond) ? samples! >= 90 && ext!.msPerSecond <= polls!.msPerSecond : null,
      ),
    },
    {
      fig: "12",
      what: "server time with pg_wait_sampling as shipped, small target during scans",
      measured: `${fmt(ext?.msPerSecond)} ms/s`,
      goal: "< 1.0 ms/s (issue 44's aim)",
      verdict: verdict(known(ext?.msPerSecond) ? ext!.msPerSecond < 1 : null),
    },
    {
      fig: "12",
      what: "worst 20 s of server time with pg_wait_sampling as shipped, 1000 x 64 during scans",
      measured: `${fmt(worst)} ms/s`,
      goal: `<= ${budget} ms/s (the budget)`,
      verdict: verdict(known(worst, budget) ? worst! <= budget : null),
    },
  ];
}
