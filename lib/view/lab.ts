// The lab's chart and form (browser, pure): per value of the lever its
// median with the min-max spread as an error bar.
import type { LabMethodSummary, LabState } from "@/lib/schemas/lab";
import { IO_METHODS, type IoMethod, type LabLever } from "@/lib/schemas/enums";
import { valueLabel } from "@/lib/schemas/levers";
import { valueOf } from "@/lib/model/lab/summary";

export interface LabBar {
  /** "sync", "io_workers = 3" */
  label: string;
  median: number;
  /** [below, above] the median: recharts' ErrorBar takes distances */
  spread: [number, number];
  readWait: number | null;
}

export function labBars(summary: readonly LabMethodSummary[], lever: LabLever = "io_method"): LabBar[] {
  return summary.map((s) => ({
    label: valueLabel(lever, valueOf(s)),
    median: s.medianMs,
    spread: [s.medianMs - s.minMs, s.maxMs - s.medianMs],
    readWait: s.readWaitMs,
  }));
}

/** The io_methods this build offers (pg_settings enumvals), in IO_METHODS order. */
export function offeredMethods(enumvals: readonly string[] | null | undefined): IoMethod[] {
  return IO_METHODS.filter((m) => (enumvals ?? ["sync", "worker"]).includes(m));
}

/** 0..1 of the runs done, for the progress bar. */
export function labFraction(state: LabState): number {
  const { done, total } = state.progress;
  return total > 0 ? Math.min(1, done / total) : 0;
}

/** What the lab's form has chosen: a lever, its values in order, the sessions at once. */
export interface LabChoice {
  lever: LabLever;
  values: string[];
  concurrency: number;
}

/** "1, 3" -> ["1", "3"]. */
export const splitValues = (text: string): string[] =>
  text
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);

/** The POST body: io_method's values as methods (its checkboxes, as the lab has always taken them), another lever's as values. */
export function labRequestBody(query: string, sql: string | null, choice: LabChoice, runs: number): Record<string, unknown> {
  const what = choice.lever === "io_method" ? { methods: choice.values } : { lever: choice.lever, values: choice.values };
  return { query, ...(sql === null ? {} : { sql }), ...what, runs, concurrency: choice.concurrency };
}
