// Findings as the page lists them: most severe first, at most a few about
// running queries, each with how long it has held and where it points.
import type { Finding, FindingSeverity, FindingsPayload } from "@/lib/schemas/findings";
import { FINDING_SEVERITIES } from "@/lib/schemas/findings";
import { formatDuration } from "@/lib/format";
import { formatViewParams } from "./url";

/** Running queries listed by name; the rest are counted (the server sends no more either). */
export const MAX_RUN_LINES = 3;

export const SEVERITY_LABELS = { act: "act", warn: "note", info: "info" } as const satisfies Record<FindingSeverity, string>;

export interface FindingLine {
  finding: Finding;
  /** "for 12 s"; null without a clock yet */
  since: string | null;
  /** the run's row and timeline on the target page */
  href: string | null;
}

export interface FindingList {
  lines: FindingLine[];
  /** "and 2 more running" (queries of a second or more without a line) */
  more: string | null;
}

const RANK = Object.fromEntries(FINDING_SEVERITIES.map((s, i) => [s, i])) as Record<FindingSeverity, number>;

/** "for 12 s" since a finding first held; "just now" under a second. */
export function heldFor(since: number, now: number): string {
  const d = now - since;
  return d < 1000 ? "just now" : `for ${formatDuration(d)}`;
}

export const runHref = (targetId: string, runId: string) => `/targets/${encodeURIComponent(targetId)}?${formatViewParams({ view: null, range: null, run: runId })}`;

export function findingList(payload: FindingsPayload, targetId: string, now: number | null, maxRuns = MAX_RUN_LINES): FindingList {
  // Stable: within a severity the server's order (running queries first) stays.
  const sorted = payload.findings.map((f, i) => ({ f, i })).sort((a, b) => RANK[a.f.severity] - RANK[b.f.severity] || a.i - b.i).map(({ f }) => f);
  let runs = 0;
  let dropped = 0;
  const lines: FindingLine[] = [];
  for (const f of sorted) {
    if (f.runId && ++runs > maxRuns) {
      dropped++;
      continue;
    }
    lines.push({ finding: f, since: now === null ? null : heldFor(f.since, now), href: f.runId ? runHref(targetId, f.runId) : null });
  }
  const more = payload.moreRuns + dropped;
  return { lines, more: more > 0 ? `and ${more} more running` : null };
}
