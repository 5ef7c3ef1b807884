// Figure 10 in the report: one inflight process holding 10, 50 and 100
// targets (names on one local PostgreSQL 18). A row each in the table, the
// goals on the largest, and a table of its own with every figure.
import { fmt, known, pct, verdict, type Json, type Row } from "./report-format";

/** The goals of issue 21 for the largest count. */
const GOALS = { cpu: 1, rssMb: 1024, loopLagP99Ms: 50, pageBusy: 0.15 };

const bothSpans = (x: Json, f: (s: Json) => string) => `${f(x.idle ?? {})} / ${f(x.watched ?? {})}`;

function meetsGoals(x: Json): boolean | null {
  const spans = [x.idle, x.watched];
  if (!spans.every((s) => s && known(s.cpu, s.rssMb, s.loopLagP99Ms)) || !known(x.page?.busyShare)) return null;
  return (
    spans.every((s) => s.cpu <= GOALS.cpu && s.rssMb <= GOALS.rssMb && s.loopLagP99Ms <= GOALS.loopLagP99Ms) &&
    x.page.busyShare <= GOALS.pageBusy
  );
}

export function fleetRows(f10: Json): Row[] {
  const rows: Json[] = f10.rows ?? [];
  const goal = `<= ${GOALS.cpu} core, <= 1 GB, p99 <= ${GOALS.loopLagP99Ms} ms; page <= ${pct(GOALS.pageBusy, 0)}`;
  if (!rows.length) return [{ fig: "10", what: "targets in one process", measured: "?", goal, verdict: "not measured" }];
  const largest = Math.max(...rows.map((x) => x.targets));
  return rows.map((x) => ({
    fig: "10",
    what: `${x.targets} targets in one inflight, idle / one watched: CPU (share of a core), RSS, event-loop delay p99; the fleet page's main thread busy`,
    measured:
      `${bothSpans(x, (s) => pct(s.cpu))}; ${bothSpans(x, (s) => `${fmt(s.rssMb, 0)}`)} MB; ${bothSpans(x, (s) => `${fmt(s.loopLagP99Ms, 0)}`)} ms; ` +
      (x.page?.error ? `page ? (${String(x.page.error).slice(0, 120)})` : `page ${pct(x.page?.busyShare)}`),
    goal: x.targets === largest ? goal : "(scale)",
    verdict: x.targets === largest ? verdict(meetsGoals(x)) : "n/a",
  }));
}

/** " (1000 ms, 2.7 ms a sample)": the interval the budget left a target, and why; nothing for a run that did not record them. */
const cadence = (s: Json) =>
  known(s.sampleMsP50, s.activityMsP50) ? ` (${fmt(s.sampleMsP50, 0)} ms, ${fmt(s.activityMsP50, 1)} ms a sample)` : "";

/** Figure 10's own table: every figure of each count. */
export function fleetTable(f10: Json): string {
  const rows: Json[] = f10.rows ?? [];
  if (!rows.length) return "";
  const kb = (bytes: unknown) =>
    typeof bytes === "number" ? (bytes >= 1e6 ? `${fmt(bytes / 1e6, 2)} MB` : `${fmt(bytes / 1e3, 0)} kB`) : "?";
  const lines = [
    `Figure 10 by number of targets (one inflight, INFLIGHT_TARGETS naming one local PostgreSQL 18 that many times; ${f10.spanSeconds ?? "?"} s with nobody watching, the idle cadence, then ${f10.spanSeconds ?? "?"} s with one target watched over SSE; then the fleet page in Chromium at 1920x1080 for ${f10.pageSeconds ?? "?"} s):`,
    "",
    "| targets | CPU, idle / watched (share of a core) | RSS, idle / watched | event-loop delay p99 (max), idle / watched | samples a second, idle / watched (each target's interval and a sample's server time, medians at the span's end) | /metrics: size, scrape (median of 5), idle / watched | fleet page: all rows drawn, main thread busy |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const x of rows) {
    const i = x.idle ?? {};
    const w = x.watched ?? {};
    const page = x.page?.error
      ? `? (${String(x.page.error).slice(0, 80)})`
      : `${fmt(x.page?.firstRenderMs, 0)} ms, ${pct(x.page?.busyShare)}`;
    lines.push(
      `| ${x.targets} | ${pct(i.cpu)} / ${pct(w.cpu)} | ${fmt(i.rssMb, 0)} / ${fmt(w.rssMb, 0)} MB | ${fmt(i.loopLagP99Ms, 0)} (${fmt(i.loopLagMaxMs, 0)}) / ${fmt(w.loopLagP99Ms, 0)} (${fmt(w.loopLagMaxMs, 0)}) ms | ` +
        `${fmt(i.samplesPerSecond, 1)}${cadence(i)} / ${fmt(w.samplesPerSecond, 1)}${cadence(w)} | ${kb(w.metricsBytes)}, ${fmt(i.metricsScrapeMs, 0)} / ${fmt(w.metricsScrapeMs, 0)} ms | ${page} |`,
    );
  }
  return lines.join("\n");
}
