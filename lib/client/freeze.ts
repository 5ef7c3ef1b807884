// Freezing the page: a copy of what the live store holds now, for the view
// to show while the stream goes on filling the store in the background.
import type { TimeDomain } from "@/lib/view/time";
import type { FrozenView } from "@/lib/view/view";
import type { LiveStore } from "./store";

/** A copy of what the store holds now, shown as [range.from, range.to]. Reads only: safe in a render. */
export function freeze(store: LiveStore, range: TimeDomain, frozenAt: number, zoomed = false): FrozenView {
  return {
    ...range,
    frame: store.currentFrame(),
    cadenceMs: store.get("target")?.sampleMs ?? null,
    queries: store.get("queries"),
    restarts: store.get("settings").restarts,
    outages: store.get("outages"),
    frozenAt,
    ticksAtFreeze: store.ticksReceived,
    zoomed,
    unzoomTo: null,
  };
}
