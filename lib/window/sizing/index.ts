// The sizing model (issue 41, pure): per lever, over a range of a server's
// sampled picture, settings and labs, raise / lower / change / leave as is /
// not enough evidence, with the figures, the statements and the labs.
import type { SizingLeverVerdict } from "../../schemas/sizing";
import { workerSizing } from "../major";
import { combineVerdict } from "./combine";
import { settingsAt, totals, type SizingInput } from "./input";
import { ioMethodVerdict } from "./method";
import { readAheadVerdict } from "./readahead";
import { SIZING_MIN_SAMPLED_MS } from "./thresholds";
import { ioMaxWorkersVerdict, ioMinWorkersVerdict, ioWorkersVerdict } from "./workers";

export type { SettingsAt, SizingInput, SizingSecond } from "./input";

/** Too little sampled time: the load-based levers say so instead of judging. */
function tooShort(v: SizingLeverVerdict, sampledMs: number): SizingLeverVerdict {
  if (v.verdict === "unknown" || sampledMs >= SIZING_MIN_SAMPLED_MS) return v;
  return { ...v, verdict: "unknown", value: null, applies: null, headline: `${v.lever}: not enough evidence`, reason: `${Math.round(sampledMs / 1000)} s of this range sampled (${SIZING_MIN_SAMPLED_MS / 1000} s needed)` };
}

export function sizeLevers(input: SizingInput): SizingLeverVerdict[] {
  const end = settingsAt(input, input.to);
  const t = totals(input.seconds);
  const ctx = { input, t, ioMethod: end?.io_method?.setting ?? null };
  const sizing = end ? workerSizing(end) : null;
  const workers =
    sizing?.kind === "pool" ? [ioMaxWorkersVerdict(sizing.max, ctx), ioMinWorkersVerdict(sizing.min, sizing.max, ctx)] : [ioWorkersVerdict(sizing?.kind === "fixed" ? sizing.workers : null, ctx)];
  const load = [...workers, readAheadVerdict(input, "effective_io_concurrency"), readAheadVerdict(input, "maintenance_io_concurrency")].map((v) => tooShort(v, t.sampledMs));
  return [...load, ioMethodVerdict(input), combineVerdict(input)];
}
