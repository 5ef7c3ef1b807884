// Responses of the JSON routes that are not a target's window.
import { z } from "zod";
import { Finding } from "./findings";
import { RestartSummary } from "./compare";
import { HistoryFinding } from "./history";
import { Verdict } from "./runs";
import { TargetInfo } from "./target";

export const TargetsResponse = z.object({ targets: z.array(TargetInfo) });
export type TargetsResponse = z.infer<typeof TargetsResponse>;

/** Every error a route returns: one envelope, the field named where one is at fault. */
export const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** One row of the fleet page: a target at a glance. */
export const FleetEntry = z.object({
  target: TargetInfo,
  pendingRestarts: z.array(z.string()),
  /** async handles in flight at the last sample; null before the first */
  inFlightNow: z.number().nullable(),
  syncNow: z.number().nullable(),
  busiestQuery: z.object({ id: z.string(), query: z.string(), verdict: Verdict, startedAt: z.number(), inFlight: z.number() }).nullable(),
  /** max async handles in flight per second over the last minute, oldest
   * first; null where no sample was taken */
  spark: z.array(z.number().nullable()),
  /** the target's most severe finding; null when it has none */
  topFinding: Finding.nullable(),
  /** the last restart, with what it changed and how the statements fared; null when none is known */
  lastRestart: RestartSummary.nullable(),
  /** the worst finding of the last hour, from disk (most severe, then longest held); null when none held or none is kept */
  hourFinding: HistoryFinding.nullable().optional(),
});
export type FleetEntry = z.infer<typeof FleetEntry>;
export const FleetResponse = z.object({ targets: z.array(FleetEntry) });
export type FleetResponse = z.infer<typeof FleetResponse>;
