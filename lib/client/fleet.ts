// One row per target on the fleet page.
import type { TargetInfo, Tick, WindowSnapshot } from "@/lib/schemas/window";
import { pendingRestarts } from "./settings";

export interface FleetRow {
  target: TargetInfo;
  /** async reads in flight in the newest sample; null when unknown */
  inFlight: number | null;
  syncInFlight: number | null;
  /** when the newest sample was taken */
  sampledAt: number | null;
  pendingRestarts: string[];
}

export function fleetRow(target: TargetInfo, recent: Pick<WindowSnapshot, "ticks" | "settings"> | null): FleetRow {
  const last: Tick | undefined = recent?.ticks.at(-1);
  return {
    target,
    inFlight: last ? last.aio.inFlight : null,
    syncInFlight: last ? last.aio.sync : null,
    sampledAt: last ? last.t : null,
    pendingRestarts: recent ? pendingRestarts(recent.settings) : [],
  };
}

/** The recent-window request for a target: the last few seconds only. */
export function recentWindowUrl(id: string, now: number, spanMs = 15_000): string {
  return `/api/targets/${encodeURIComponent(id)}/window?from=${Math.max(0, Math.floor(now - spanMs))}`;
}
