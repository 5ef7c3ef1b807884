// The lab's chart and form (browser, pure): per io_method its median with
// the min-max spread as an error bar, and every run as a dot.
import type { LabMethodSummary, LabRun, LabState } from "@/lib/schemas/lab";
import { IO_METHODS, type IoMethod } from "@/lib/schemas/enums";

export interface LabBar {
  method: IoMethod;
  median: number;
  /** [below, above] the median: recharts' ErrorBar takes distances */
  spread: [number, number];
  readWait: number | null;
}

export function labBars(summary: readonly LabMethodSummary[]): LabBar[] {
  return summary.map((s) => ({ method: s.method, median: s.medianMs, spread: [s.medianMs - s.minMs, s.maxMs - s.medianMs], readWait: s.readWaitMs }));
}

/** Each run as a dot over its method's bar. */
export function labDots(runs: readonly LabRun[]): { method: IoMethod; ms: number }[] {
  return runs.map((r) => ({ method: r.method, ms: r.executionMs }));
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
