// What the charts draw from: the window's samples as the live store (or a
// frozen copy, or the history on disk) hands them over.
import type { IoSample, Tick } from "@/lib/schemas/tick";
import type { Outage } from "@/lib/schemas/window";
import type { RatePoint } from "./throughput";

export interface Frame {
  /** ticks in the window, oldest first; a new array when anything changed */
  ticks: readonly Tick[];
  /** pg_stat_io deltas in the window; the same array until one arrives */
  io: readonly IoSample[];
  /** the live read estimate from pg_aios block positions, one point per
   * queries event since this store was made (the server keeps no history of it) */
  rates: readonly RatePoint[];
}

export type Outages = readonly Outage[];
