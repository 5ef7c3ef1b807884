// The soak's figure as Markdown (BENCH_ONLY=soak prints it; BENCHMARKS.md
// carries the run's copy by hand, as figure 11's).
import { fmt, mb, pct, signedPct } from "./report-format";
import { liveHeap, nativeOf, SOAK_GOALS, type SettledReading, type SoakFigure } from "./soak";

const ms = (x: number | null) => (x === null ? "?" : `${fmt(x, 1)} ms`);
const yes = (ok: boolean | null) => (ok === null ? "not measured" : ok ? "met" : "MISSED");
const slopeText = (g: { mbPer10Min: number | null; growth: number | null }) =>
  `${fmt(g.mbPer10Min, 1)} MB / 10 min (${signedPct(g.growth)})`;

export function soakTable(f: SoakFigure): string[] {
  const min = (s: number) => fmt(s / 60, 0);
  const { rss, heapUsed } = f.afterFull;
  const st = f.settled;
  const at = (pick: (r: SettledReading) => number | null) => [
    st.first === null ? "?" : mb(pick(st.first)),
    st.last === null ? "?" : mb(pick(st.last)),
  ];
  const judgedSpan = `from ${min(f.windowS)} to ${min(f.endS)} min, least squares`;
  const settledAt = (b: { from: number; to: number }) => f.settledReadings.find((r) => r.s > b.from && r.s <= b.to) ?? null;
  return [
    `After a full collection of every isolate (${st.readings} readings, every 5 minutes from the window's full moment):`,
    "",
    `| after a full collection | at ${min(f.windowS)} min (window full) | at ${min(f.endS)} min (end) | ${judgedSpan} | goal | verdict |`,
    "|---|---|---|---|---|---|",
    `| RSS | ${at((r) => r.rss).join(" | ")} | ${slopeText(st.rss)} | <= +${pct(SOAK_GOALS.growth, 0)} | ${yes(f.verdict.rss)} |`,
    `| live JS heap (main thread + worker threads) | ${at(liveHeap).join(" | ")} | ${slopeText(st.liveHeap)}; ${st.liveHeapClimbs === null ? "?" : st.liveHeapClimbs ? "rising at every reading" : "not rising at every reading"} | <= +${pct(SOAK_GOALS.growth, 0)}, not rising reading after reading by > ${pct(SOAK_GOALS.heapClimb, 0)} | ${yes(f.verdict.heap)} |`,
    `| of RSS: V8's heaps (resident, all isolates) | ${at((r) => r.v8Physical).join(" | ")} | ${slopeText(st.v8Physical)} | | |`,
    `| of RSS: outside V8's heaps (anonymous less the heaps: malloc, stacks) | ${at(nativeOf).join(" | ")} | ${slopeText(st.native)} | | |`,
    `| main thread's external memory (of it, array buffers) | ${[st.first, st.last].map((r) => (r ? `${mb(r.external)} (${mb(r.arrayBuffers)})` : "?")).join(" | ")} | | | |`,
    "",
    "Between collections, every 30 s (context: its level is where V8 chose to collect):",
    "",
    `| between collections | at ${min(f.windowS)} min (window full) | at ${min(f.endS)} min (end) | ${judgedSpan} |`,
    "|---|---|---|---|",
    `| RSS | ${mb(f.atFull.rss)} | ${mb(f.atEnd.rss)} | ${slopeText(rss)} |`,
    `| JS heap used | ${mb(f.atFull.heapUsed)} | ${mb(f.atEnd.heapUsed)} | ${slopeText(heapUsed)}; 5-min floors ${f.afterFull.heapFloors.map(mb).join(", ")} |`,
    `| JS heap total | ${mb(f.atFull.heapTotal)} | ${mb(f.atEnd.heapTotal)} | |`,
    "",
    "| minutes | RSS (median) | RSS (most) | heap used (floor) | after a collection at the block's end: RSS / live heap | event-loop delay p50 | p99 | max |",
    "|---|---|---|---|---|---|---|---|",
    ...f.blocks.map((b) => {
      const s = settledAt(b);
      const held = s?.window ? ` (window: ${s.window.ticks ?? "?"} ticks, ${s.window.runs ?? "?"} runs, ${mb(s.window.bytes)})` : "";
      return `| ${min(b.from)}-${min(b.to)}${b.from >= f.windowS ? " (judged)" : ""} | ${mb(b.rssMedian)} | ${mb(b.rssMax)} | ${mb(b.heapFloor)} | ${s ? `${mb(s.rss)} / ${mb(liveHeap(s))}${held}` : ""} | ${ms(b.lagP50)} | ${ms(b.lagP99)} | ${ms(b.lagMax)} |`;
    }),
    "",
    `Event-loop delay after the window filled, each block against the first (p50 within ${SOAK_GOALS.lagP50.ratio}x + ${SOAK_GOALS.lagP50.plusMs} ms, p99 within ${SOAK_GOALS.lagP99.ratio}x + ${SOAK_GOALS.lagP99.plusMs} ms): ${yes(f.verdict.lag)}. Flat: ${yes(f.verdict.flat)}.`,
  ];
}
