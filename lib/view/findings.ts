// Findings as the page lists them: most severe first, at most a few about
// running queries, each with how long it has held and where it points.
import type { Finding, FindingSeverity, FindingsPayload } from "@/lib/schemas/findings";
import { FINDING_SEVERITIES } from "@/lib/schemas/findings";
import { formatDuration } from "@/lib/format";
import { formatViewParams } from "./url";

/** Running queries listed by name; the rest are counted (the server sends no more either). */
export const MAX_RUN_LINES = 3;

export const SEVERITY_LABELS = { act: "act", note: "note", info: "info" } as const satisfies Record<FindingSeverity, string>;

export interface FindingLine {
  finding: Finding;
  /** "for 12 s"; null without a clock yet */
  since: string | null;
  /** the run's row and timeline on the target page */
  href: string | null;
}

export interface FindingList {
  /** the server-wide lines, most severe first */
  causes: FindingLine[];
  /** the running queries' verdicts, the most time left first: the first MAX_RUN_LINES, or all when asked */
  runs: FindingLine[];
  /** running queries with a verdict not shown (until asked), and those the server only counted */
  hidden: number;
  /** "and 2 more running" (queries of a second or more without a line); null when none */
  more: string | null;
}

const RANK = Object.fromEntries(FINDING_SEVERITIES.map((s, i) => [s, i])) as Record<FindingSeverity, number>;

/** "for 12 s" since a finding first held; "just now" under a second. */
export function heldFor(since: number, now: number): string {
  const d = now - since;
  return d < 1000 ? "just now" : `for ${formatDuration(d)}`;
}

export const runHref = (targetId: string, runId: string) =>
  `/targets/${encodeURIComponent(targetId)}?${formatViewParams({ view: null, range: null, run: runId })}`;

/**
 * The findings as the page lists them: the server's causes, most severe
 * first, then a verdict per running query, the most time left first (those
 * whose time left is not known after, in the server's order), the first few
 * unless all are asked for.
 */
export function findingList(
  payload: FindingsPayload,
  targetId: string,
  now: number | null,
  all = false,
  maxRuns = MAX_RUN_LINES,
): FindingList {
  const line = (f: Finding): FindingLine => ({
    finding: f,
    since: now === null ? null : heldFor(f.since, now),
    href: f.runId ? runHref(targetId, f.runId) : null,
  });
  // Stable: within a severity the server's order stays.
  const causes = payload.findings
    .filter((f) => !f.runId)
    .map((f, i) => ({ f, i }))
    .sort((a, b) => RANK[a.f.severity] - RANK[b.f.severity] || a.i - b.i)
    .map(({ f }) => line(f));
  // The most time left first (the server sorts them so, then by severity among all findings).
  const left = (f: Finding) => (typeof f.evidence.etaMs === "number" ? f.evidence.etaMs : -1);
  const running = payload.findings
    .filter((f) => f.runId)
    .map((f, i) => ({ f, i }))
    .sort((a, b) => left(b.f) - left(a.f) || a.i - b.i)
    .map(({ f }) => line(f));
  const shown = all ? running : running.slice(0, maxRuns);
  const hidden = running.length - shown.length + payload.moreRuns;
  return { causes, runs: shown, hidden, more: hidden > 0 ? `and ${hidden} more running` : null };
}
