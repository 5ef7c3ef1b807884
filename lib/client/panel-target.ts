// The target as the page's panels read it. A `target` event comes every
// second with the header's counters (samples, the rate achieved, viewers, the
// watching cost, each aspect's last good read); a panel handed the whole object
// would re-render, every chart with it, on each one. Panels take PanelTarget
// instead, which keeps its identity until one of these fields changes.
import type { TargetInfo } from "@/lib/schemas/target";

export const PANEL_FIELDS = [
  "id",
  "name",
  "status",
  "statusSince",
  "lastError",
  "serverVersion",
  "serverVersionNum",
  "ioMethod",
  "demo",
  "sampleMs",
  "windowMs",
  "postmasterStart",
  "capabilities",
  "aspects",
] as const satisfies readonly (keyof TargetInfo)[];

/** What a panel may read of the target (the type keeps a panel from reading a counter that goes stale). */
export type PanelTarget = Pick<TargetInfo, (typeof PANEL_FIELDS)[number]>;

function sameCapabilities(a: TargetInfo["capabilities"], b: TargetInfo["capabilities"]): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof typeof a>;
  return [...keys].every((k) => a[k] === b[k]);
}

/** Aspects alike but for the time of their last good read (which moves with every read). */
function sameAspects(a: TargetInfo["aspects"], b: TargetInfo["aspects"]): boolean {
  return (
    a === b ||
    (a.length === b.length &&
      a.every((x, i) => {
        const y = b[i];
        return x.aspect === y.aspect && x.state === y.state && x.since === y.since && x.lastError === y.lastError && x.note === y.note;
      }))
  );
}

/** Whether a panel would show `a` and `b` alike. */
export function samePanelTarget(a: PanelTarget, b: PanelTarget): boolean {
  return PANEL_FIELDS.every((f) =>
    f === "capabilities"
      ? sameCapabilities(a.capabilities, b.capabilities)
      : f === "aspects"
        ? sameAspects(a.aspects, b.aspects)
        : a[f] === b[f],
  );
}
