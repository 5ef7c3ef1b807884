// The sizing model (issue 41, pure): per lever, over a range of a server's
// history, settings and labs, raise / lower / change / leave as is /
// not enough evidence, with the figures, the statements and the labs.
import type { Settings } from "../../../schemas/settings";
import type { SizingLeverVerdict } from "../../../schemas/sizing";
import { workerSizing } from "../major";
import { combineVerdict } from "./combine";
import { settingsAt, totals, type SizingInput } from "./input";
import { ioMethodVerdict } from "./method";
import { readAheadVerdict } from "./readahead";
import { SIZING_MIN_SAMPLED_MS } from "./thresholds";
import { ioMaxWorkersVerdict, ioMinWorkersVerdict, ioWorkersVerdict } from "./workers";

export type { SettingsAt, SizingInput, SizingSecond } from "./input";

const WORKER_SETTINGS = ["io_method", "io_workers", "io_min_workers", "io_max_workers"] as const;

/** Too little sampled time: the load-based levers say so instead of judging. */
function tooShort(v: SizingLeverVerdict, sampledMs: number): SizingLeverVerdict {
  if (v.verdict === "unknown" || sampledMs >= SIZING_MIN_SAMPLED_MS) return v;
  return {
    ...v,
    verdict: "unknown",
    value: null,
    applies: null,
    headline: `${v.lever}: not enough evidence`,
    reason: `${Math.round(sampledMs / 1000)} s of this range sampled (${SIZING_MIN_SAMPLED_MS / 1000} s needed)`,
  };
}

/** Whether the io workers' settings at `t` are those in force at the end of the range. */
function sameWorkers(input: SizingInput, end: Settings | null, t: number): boolean {
  const at = settingsAt(input, t);
  return WORKER_SETTINGS.every((n) => at?.[n]?.setting === end?.[n]?.setting);
}

/**
 * The io workers' verdicts over the seconds run under the settings in force
 * at the end, whenever they held in the range: the seconds under other values
 * (before a change, or a lab's own run of another value, whose io_workers
 * the lab then put back) judged those values, not these.
 */
function workersVerdicts(input: SizingInput, end: Settings | null): SizingLeverVerdict[] {
  const seconds = input.seconds.filter((x) => sameWorkers(input, end, x.t));
  const others = input.seconds.length - seconds.length;
  const own = others > 0 ? { ...input, seconds } : input;
  const t = totals(own.seconds);
  const ctx = { input: own, t, ioMethod: end?.io_method?.setting ?? null };
  const sizing = end ? workerSizing(end) : null;
  const verdicts =
    sizing?.kind === "pool"
      ? [ioMaxWorkersVerdict(sizing.max, ctx), ioMinWorkersVerdict(sizing.min, sizing.max, ctx)]
      : [ioWorkersVerdict(sizing?.kind === "fixed" ? sizing.workers : null, ctx)];
  const note = others > 0 ? `under the io worker settings in force (${others} s of this range ran under others, left out): ` : "";
  return verdicts.map((v) => tooShort({ ...v, reason: note + v.reason }, t.sampledMs));
}

export function sizeLevers(input: SizingInput): SizingLeverVerdict[] {
  const end = settingsAt(input, input.to);
  const t = totals(input.seconds);
  const readAhead = [readAheadVerdict(input, "effective_io_concurrency"), readAheadVerdict(input, "maintenance_io_concurrency")].map((v) =>
    tooShort(v, t.sampledMs),
  );
  const load = [...workersVerdicts(input, end), ...readAhead];
  return [...load, ioMethodVerdict(input), combineVerdict(input)];
}
