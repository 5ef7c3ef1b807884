// The io workers' lever over a range (issue 41): on 18 io_workers, on 19
// io_max_workers (the pool at its maximum while full) and io_min_workers
// (a pool that grows and shrinks over and over). The share is of the
// samples in which backends read through the io workers; the value to set
// is what the busiest seconds asked for: each backend waiting on its reads
// at once is a stream of reads the workers serve.
import type { SizingFigure, SizingLeverVerdict } from "../../../schemas/sizing";
import type { QueryRun } from "../../../schemas/runs";
import { pct } from "../findings/figures";
import { WORKERS_PARTIAL_SHARE } from "../findings/thresholds";
import {
  ended,
  labsOf,
  noChange,
  quantile,
  secondsOf,
  span,
  statementsOf,
  workload,
  type LoadTotals,
  type SizingInput,
  type SizingSecond,
} from "./input";
import {
  IO_WORKERS_DEFAULT,
  SIZING_CHURN_LAUNCHES,
  SIZING_MAX_STEP,
  SIZING_MIN_READING_SAMPLES,
  SIZING_PEAK_QUANTILE,
  SIZING_WORKERS_CAP,
} from "./thresholds";

export interface WorkersContext {
  input: SizingInput;
  t: LoadTotals;
  ioMethod: string | null;
}

/** The full share's figure: "io workers full in 41% of the 12 min in which backends read through them". */
function fullFigure(t: LoadTotals, full: number, where = ""): SizingFigure {
  const share = t.reading ? Math.min(1, full / t.reading) : 0;
  return {
    text: `io workers full${where} in ${pct(share)} of the ${span(t.readingMs)} in which backends read through them (${full} of ${t.reading} samples)`,
    value: share,
    spanMs: t.readingMs,
  };
}

/** The value the busiest seconds ask for: their backends waiting at once, one more than now at least, SIZING_MAX_STEP times now and 32 at most. */
export function workersFor(seconds: readonly SizingSecond[], now: number): { value: number; peak: number } {
  const peaks = seconds.filter((s) => s.load.full > 0).map((s) => Math.max(s.load.peakWaiting, 1));
  const peak = quantile(peaks, SIZING_PEAK_QUANTILE) ?? now + 1;
  return { value: Math.min(SIZING_WORKERS_CAP, now * SIZING_MAX_STEP, Math.max(now + 1, peak)), peak };
}

const RULE = `the backends waiting on their reads at once in the busiest seconds (the ${Math.round(SIZING_PEAK_QUANTILE * 100)}th percentile of the full seconds), at least one more than now, at most ${SIZING_MAX_STEP}x now and ${SIZING_WORKERS_CAP}`;

/** The runs that waited on their async reads in a second the io workers were full. */
function heldBack(input: SizingInput): QueryRun[] {
  return ended(input.runs).filter((r) => workload(r) && r.aioWaitSamples > 0 && secondsOf(input.seconds, r).some((s) => s.load.full > 0));
}

/** Before any rule: no io workers, no samples, too few reads. Null when the load can be judged. */
function precondition(lever: SizingLeverVerdict["lever"], now: number | null, c: WorkersContext): SizingLeverVerdict | null {
  const shown = now === null ? null : String(now);
  if (now === null) return noChange(lever, "unknown", null, `the settings of this range are not known (${lever} not read)`);
  if (c.ioMethod !== null && c.ioMethod !== "worker")
    return noChange(lever, "leave", shown, `io_method is ${c.ioMethod}: no io workers read for the backends`);
  if (c.t.samples === 0) return noChange(lever, "unknown", shown, "no second of this range was sampled with its load");
  if (c.t.reading === 0)
    return noChange(
      lever,
      "leave",
      shown,
      `no backend read through the io workers in the ${span(c.t.sampledMs)} sampled: nothing queued for them`,
      { figures: [fullFigure(c.t, 0)] },
    );
  if (c.t.reading < SIZING_MIN_READING_SAMPLES)
    return noChange(
      lever,
      "unknown",
      shown,
      `backends read through the io workers in ${c.t.reading} samples only (${SIZING_MIN_READING_SAMPLES} needed)`,
      { figures: [fullFigure(c.t, c.t.full)] },
    );
  return null;
}

/** 18: io_workers. */
export function ioWorkersVerdict(now: number | null, c: WorkersContext): SizingLeverVerdict {
  const early = precondition("io_workers", now, c);
  if (early || now === null) return { ...early!, lab: labsOf(c.input.labs, "io_workers") };
  const { t } = c;
  const share = t.full / t.reading;
  const figures = [
    fullFigure(t, t.full),
    { text: `at most ${t.maxBusy} of ${now} io workers busy at once`, value: t.maxBusy, spanMs: null },
  ];
  const lab = labsOf(c.input.labs, "io_workers");
  if (share >= WORKERS_PARTIAL_SHARE && now < SIZING_WORKERS_CAP) {
    const { value, peak } = workersFor(c.input.seconds, now);
    figures.push({ text: `up to ${peak} backends waiting on their reads at once in the busiest seconds`, value: peak, spanMs: null });
    const reason = `the io workers were the queue in ${pct(share)} of the time backends read through them (${pct(WORKERS_PARTIAL_SHARE)} or more is a lever); ${value} is ${RULE}`;
    return {
      lever: "io_workers",
      verdict: "raise",
      now: String(now),
      value: String(value),
      applies: "reload",
      headline: `raise io_workers ${now} -> ${value} (a reload applies it)`,
      reason,
      figures,
      statements: statementsOf(heldBack(c.input)),
      lab,
    };
  }
  if (share === 0 && now > IO_WORKERS_DEFAULT && t.maxBusy + 1 < now) {
    const value = Math.max(IO_WORKERS_DEFAULT, t.maxBusy + 1);
    const reason = `never full, and never more than ${t.maxBusy} busy at once: ${value} keeps one spare`;
    return {
      lever: "io_workers",
      verdict: "lower",
      now: String(now),
      value: String(value),
      applies: "reload",
      headline: `lower io_workers ${now} -> ${value} (a reload applies it)`,
      reason,
      figures,
      statements: [],
      lab,
    };
  }
  return noChange(
    "io_workers",
    "leave",
    String(now),
    `the io workers were the queue in ${pct(share)} of the time backends read through them (under ${pct(WORKERS_PARTIAL_SHARE)}: not the limit)`,
    { figures, lab },
  );
}

/** 19: io_max_workers, from the time the pool sat at its maximum while full. */
export function ioMaxWorkersVerdict(max: number | null, c: WorkersContext): SizingLeverVerdict {
  const early = precondition("io_max_workers", max, c);
  if (early || max === null) return { ...early!, lab: labsOf(c.input.labs, "io_max_workers") };
  const { t } = c;
  const share = t.fullAtMax / t.reading;
  const figures: SizingFigure[] = [
    fullFigure(t, t.fullAtMax, ` at io_max_workers (${max})`),
    {
      text: `the pool at io_max_workers in ${pct(t.atMax / t.samples)} of the ${span(t.sampledMs)} sampled; at most ${t.maxAlive} alive`,
      value: t.atMax / t.samples,
      spanMs: t.sampledMs,
    },
    { text: `${t.launched} io workers launched, ${t.exited} exited`, value: t.launched, spanMs: t.sampledMs },
  ];
  const lab = labsOf(c.input.labs, "io_max_workers");
  if (share >= WORKERS_PARTIAL_SHARE && max < SIZING_WORKERS_CAP) {
    const { value, peak } = workersFor(
      c.input.seconds.filter((s) => s.load.fullAtMax > 0),
      max,
    );
    figures.push({ text: `up to ${peak} backends waiting on their reads at once in the busiest seconds`, value: peak, spanMs: null });
    const reason = `the pool was at its maximum and full in ${pct(share)} of the time backends read through it; it cannot grow past io_max_workers; ${value} is ${RULE}`;
    return {
      lever: "io_max_workers",
      verdict: "raise",
      now: String(max),
      value: String(value),
      applies: "reload",
      headline: `raise io_max_workers ${max} -> ${value} (a reload applies it)`,
      reason,
      figures,
      statements: statementsOf(heldBack(c.input)),
      lab,
    };
  }
  return noChange(
    "io_max_workers",
    "leave",
    String(max),
    `the pool was at its maximum and full in ${pct(share)} of the time backends read through it (under ${pct(WORKERS_PARTIAL_SHARE)}): it has room`,
    { figures, lab },
  );
}

/** 19: io_min_workers, raised when the pool launches and retires workers over and over. */
export function ioMinWorkersVerdict(min: number | null, max: number | null, c: WorkersContext): SizingLeverVerdict {
  const early = precondition("io_min_workers", min, c);
  if (early || min === null) return { ...early!, lab: labsOf(c.input.labs, "io_min_workers") };
  const { t } = c;
  const figures: SizingFigure[] = [
    {
      text: `the pool idle at io_min_workers (${min}) in ${pct(t.idleAtMin / t.samples)} of the ${span(t.sampledMs)} sampled`,
      value: t.idleAtMin / t.samples,
      spanMs: t.sampledMs,
    },
    { text: `${t.launched} io workers launched, ${t.exited} exited`, value: t.launched, spanMs: t.sampledMs },
  ];
  const lab = labsOf(c.input.labs, "io_min_workers");
  const typical =
    quantile(
      c.input.seconds.filter((s) => s.load.reading > 0).map((s) => s.load.maxAlive),
      0.5,
    ) ?? min;
  const value = Math.min(max ?? SIZING_WORKERS_CAP, typical);
  if (t.launched >= SIZING_CHURN_LAUNCHES && t.exited >= SIZING_CHURN_LAUNCHES && value > min) {
    const reason = `the pool grew and shrank over and over (${t.launched} launches, ${t.exited} exits): ${value} is the workers alive in the median second with reads`;
    return {
      lever: "io_min_workers",
      verdict: "raise",
      now: String(min),
      value: String(value),
      applies: "reload",
      headline: `raise io_min_workers ${min} -> ${value} (a reload applies it)`,
      reason,
      figures,
      statements: [],
      lab,
    };
  }
  return noChange(
    "io_min_workers",
    "leave",
    String(min),
    `the pool grows when it needs to (${t.launched} launches, ${t.exited} exits, under ${SIZING_CHURN_LAUNCHES} each is not churn)`,
    { figures, lab },
  );
}
