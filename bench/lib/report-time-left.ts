// Figure 11's rows: time left held against real ends, alone and four at
// once (bench/phases/time-left.ts).
import { fmt, known, pct, verdict, type Json, type Row } from "./report-format";

export function timeLeftRows(f11: Json): Row[] {
  const goals = f11.goals ?? { heldShare: 0.9, medianError: 0.15 };
  const sides: [string, Json | undefined][] = [
    ["alone", f11.alone],
    ["four at once", f11.together],
  ];
  return sides.map(([name, j]) => ({
    fig: "11",
    what: `time left, cold scans ${name} (${j?.scans ?? "?"} scans, median ${fmt((j?.medianScanMs ?? NaN) / 1000, 1)} s; ${j?.looks ?? "?"} looks from a quarter of each scan on, ${j?.noRange ?? "?"} with no range yet): looks whose range held the real end; median error of the middle`,
    measured: `${pct(j?.heldShare)}; ${pct(j?.medianError)}`,
    goal: `>= ${pct(goals.heldShare, 0)}; <= ${pct(goals.medianError, 0)}`,
    verdict: verdict(known(j?.heldShare, j?.medianError) ? j!.heldShare >= goals.heldShare && j!.medianError <= goals.medianError : null),
  }));
}
