// The sizing view's presenter (issue 41, pure): the range picked to its URL,
// each verdict's word, and where the lab proves a lever.
import { LAB_LEVERS, type SizingLever, type SizingVerdict } from "@/lib/schemas/enums";
import { SIZING_RANGES } from "@/lib/schemas/params";

export type SizingRange = { kind: "named"; range: keyof typeof SIZING_RANGES } | { kind: "custom"; from: number; to: number };

export const sizingUrl = (id: string, r: SizingRange) =>
  `/api/targets/${encodeURIComponent(id)}/sizing?${r.kind === "named" ? `range=${r.range}` : `from=${Math.floor(r.from)}&to=${Math.ceil(r.to)}`}`;

export const VERDICT_WORDS = {
  raise: "raise",
  lower: "lower",
  change: "change",
  leave: "leave as is",
  unknown: "not enough evidence",
} as const satisfies Record<SizingVerdict, string>;

/** A custom range from two datetime-local values (local time); null when either is missing or they are reversed. */
export function customRange(from: string, to: string): SizingRange | null {
  const f = Date.parse(from);
  const t = Date.parse(to);
  return Number.isFinite(f) && Number.isFinite(t) && f < t ? { kind: "custom", from: f, to: t } : null;
}

/** How to prove a lever: the demo's lab, `npm run lab` elsewhere; null for a lever the lab does not run. */
export function labHint(lever: SizingLever, demo: boolean): string | null {
  if (!(LAB_LEVERS as readonly string[]).includes(lever)) return null;
  return demo
    ? `prove it in the lab: the demo's A/B lab on the target page, ${lever} as the lever`
    : `prove it with \`npm run lab\` on a cluster you control (${lever}, docs/lab.md)`;
}
