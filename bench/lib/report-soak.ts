// The soak's figure as Markdown (BENCH_ONLY=soak prints it; BENCHMARKS.md
// carries the run's copy by hand, as figure 11's).
import { fmt, mb, pct, signedPct } from "./report-format";
import { SOAK_GOALS, type SoakFigure } from "./soak";

const ms = (x: number | null) => (x === null ? "?" : `${fmt(x, 1)} ms`);
const yes = (ok: boolean | null) => (ok === null ? "not measured" : ok ? "met" : "MISSED");

export function soakTable(f: SoakFigure): string[] {
  const min = (s: number) => fmt(s / 60, 0);
  const { rss, heapUsed } = f.afterFull;
  return [
    `| | at ${min(f.windowS)} min (window full) | at ${min(f.endS)} min (end) | from ${min(f.windowS)} to ${min(f.endS)} min, least squares | goal | verdict |`,
    "|---|---|---|---|---|---|",
    `| RSS | ${mb(f.atFull.rss)} | ${mb(f.atEnd.rss)} | ${fmt(rss.mbPer10Min, 1)} MB / 10 min (${signedPct(rss.growth)}) | <= +${pct(SOAK_GOALS.growth, 0)} | ${yes(f.verdict.rss)} |`,
    `| JS heap used | ${mb(f.atFull.heapUsed)} | ${mb(f.atEnd.heapUsed)} | ${fmt(heapUsed.mbPer10Min, 1)} MB / 10 min (${signedPct(heapUsed.growth)}); 5-min floors ${f.afterFull.heapFloors.map(mb).join(", ")} | <= +${pct(SOAK_GOALS.growth, 0)}, floors not rising block after block by > ${pct(SOAK_GOALS.heapClimb, 0)} | ${yes(f.verdict.heap)} |`,
    `| JS heap total | ${mb(f.atFull.heapTotal)} | ${mb(f.atEnd.heapTotal)} | | | |`,
    "",
    "| minutes | RSS (median) | heap used (floor) | event-loop delay p50 | p99 | max |",
    "|---|---|---|---|---|---|",
    ...f.blocks.map(
      (b) =>
        `| ${min(b.from)}-${min(b.to)}${b.from >= f.windowS ? " (judged)" : ""} | ${mb(b.rssMedian)} | ${mb(b.heapFloor)} | ${ms(b.lagP50)} | ${ms(b.lagP99)} | ${ms(b.lagMax)} |`,
    ),
    "",
    `Event-loop delay after the window filled, each block against the first (p50 within ${SOAK_GOALS.lagP50.ratio}x + ${SOAK_GOALS.lagP50.plusMs} ms, p99 within ${SOAK_GOALS.lagP99.ratio}x + ${SOAK_GOALS.lagP99.plusMs} ms): ${yes(f.verdict.lag)}. Flat: ${yes(f.verdict.flat)}.`,
  ];
}
