// Read-ahead over a range (issue 41): each ended run that read
// asynchronously, its mean reads in flight against the
// effective_io_concurrency (maintenance_io_concurrency for vacuum) in force
// when it ran. Scans that waited on their reads with their reads in flight
// at the cap are held back by it: raise it. Scans that waited with fewer in
// flight than allowed are not held back by the cap: leave it.
import type { QueryRun } from "../../../schemas/runs";
import type { SizingFigure, SizingLeverVerdict } from "../../../schemas/sizing";
import { pct } from "../findings/figures";
import { MIN_SAMPLES, READ_WAIT_HIGH_SHARE, READAHEAD_PINNED_SHARE, WORKERS_PARTIAL_SHARE } from "../findings/thresholds";
import { ended, labsOf, noChange, secondsOf, settingNum, settingsAt, statementsOf, totals, workload, type SizingInput } from "./input";
import { READAHEAD_CAP, READAHEAD_DEFAULT, SIZING_MIN_PINNED_RUNS } from "./thresholds";

export type ReadAheadKnob = "effective_io_concurrency" | "maintenance_io_concurrency";

/** The knob that caps a run's read-ahead: vacuum's is maintenance_io_concurrency (the live rule's test). */
export const knobOf = (r: Pick<QueryRun, "backendType" | "query">): ReadAheadKnob =>
  r.backendType === "autovacuum worker" || /^\s*vacuum\b/i.test(r.query) ? "maintenance_io_concurrency" : "effective_io_concurrency";

interface Judged {
  run: QueryRun;
  cap: number;
  meanInFlight: number;
  readWait: number;
  /** waited on its reads with its reads in flight at the cap */
  pinned: boolean;
  /** the io workers were its queue: the reads piled up there, not at the cap */
  workersQueue: boolean;
}

function judge(input: SizingInput, knob: ReadAheadKnob): Judged[] {
  const out: Judged[] = [];
  for (const run of ended(input.runs)) {
    if (knobOf(run) !== knob || !workload(run) || run.samples < MIN_SAMPLES || run.aioSamples === 0) continue;
    const cap = settingNum(settingsAt(input, run.startedAt), knob);
    if (cap === null || cap <= 0) continue;
    const meanInFlight = run.sumInFlight / run.aioSamples;
    const readWait = (run.aioWaitSamples + run.readWaitSamples) / run.samples;
    const t = totals(secondsOf(input.seconds, run));
    const workersQueue = t.reading > 0 && t.full / t.reading >= WORKERS_PARTIAL_SHARE;
    const pinned = readWait >= READ_WAIT_HIGH_SHARE && meanInFlight >= cap * READAHEAD_PINNED_SHARE && !workersQueue;
    out.push({ run, cap, meanInFlight, readWait, pinned, workersQueue });
  }
  return out;
}

/** Below the default, to the default; at or above it, twice: then measured again. */
export const readAheadFor = (cap: number) => Math.min(READAHEAD_CAP, cap < READAHEAD_DEFAULT ? READAHEAD_DEFAULT : cap * 2);

const runs = (n: number) => `${n} run${n === 1 ? "" : "s"}`;
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const caps = (js: readonly Judged[]) => [...new Set(js.map((j) => j.cap))].join(", ");

function figuresOf(js: readonly Judged[], knob: ReadAheadKnob): SizingFigure[] {
  const pinned = js.filter((j) => j.pinned);
  const waited = js.filter((j) => j.readWait >= READ_WAIT_HIGH_SHARE);
  const figures: SizingFigure[] = [
    {
      text: `${runs(js.length)} read asynchronously; ${waited.length} waited on ${waited.length === 1 ? "its" : "their"} reads in ${pct(READ_WAIT_HIGH_SHARE)} or more of ${waited.length === 1 ? "its" : "their"} samples`,
      value: js.length,
      spanMs: null,
    },
    {
      text: `${pinned.length} of them at the cap: ${mean(pinned.map((j) => j.meanInFlight)).toFixed(1)} reads in flight on average at ${knob} ${caps(pinned) || "–"}`,
      value: pinned.length,
      spanMs: null,
    },
  ];
  const below = waited.filter((j) => !j.pinned && !j.workersQueue);
  if (below.length)
    figures.push({
      text: `${below.length} waited below the cap: ${mean(below.map((j) => j.meanInFlight)).toFixed(1)} in flight on average at ${knob} ${caps(below)}`,
      value: below.length,
      spanMs: null,
    });
  const queued = js.filter((j) => j.workersQueue).length;
  if (queued)
    figures.push({
      text: `${queued} ran while the io workers were their queue (the io workers' lever, not read-ahead)`,
      value: queued,
      spanMs: null,
    });
  return figures;
}

export function readAheadVerdict(input: SizingInput, knob: ReadAheadKnob): SizingLeverVerdict {
  const nowNum = settingNum(settingsAt(input, input.to), knob);
  const now = nowNum === null ? null : String(nowNum);
  const lab = knob === "effective_io_concurrency" ? labsOf(input.labs, knob) : [];
  if (nowNum === null) return noChange(knob, "unknown", null, `the settings of this range are not known (${knob} not read)`, { lab });
  const js = judge(input, knob);
  const who = knob === "effective_io_concurrency" ? "scan" : "vacuum";
  if (!js.length) return noChange(knob, "leave", now, `no ${who} read asynchronously in this range: nothing reached the cap`, { lab });
  const figures = figuresOf(js, knob);
  const pinned = js.filter((j) => j.pinned);
  if (pinned.length >= SIZING_MIN_PINNED_RUNS) {
    const value = readAheadFor(Math.max(...pinned.map((j) => j.cap)));
    if (value > nowNum) {
      const reason = `${pinned.length} runs waited on their reads with as many in flight as ${knob} allows: the cap held them back; ${value} is ${nowNum < READAHEAD_DEFAULT ? `the default (${READAHEAD_DEFAULT})` : "twice the cap"}, then measure again`;
      return {
        lever: knob,
        verdict: "raise",
        now,
        value: String(value),
        applies: "reload",
        headline: `raise ${knob} ${nowNum} -> ${value} (a reload applies it)`,
        reason,
        figures,
        statements: statementsOf(pinned.map((j) => j.run)),
        lab,
      };
    }
    return noChange(knob, "leave", now, `the runs at the cap ran at ${caps(pinned)}; it is ${nowNum} now: measure again at this value`, {
      figures,
      lab,
    });
  }
  return noChange(knob, "leave", now, `${pinned.length < 1 ? "no run" : "one run only"} waited at the cap: the cap is not the limit`, {
    figures,
    lab,
  });
}
