// Figure 6's rows: the target page in Chromium (bench/phases/browser.ts), its main thread, paint and stream.
import { fmt, known, pct, verdict, type Json, type Row } from "./report-format";

/** "in-flight 2, (no redraw) 1": the page's long tasks by chart, most first (bench/lib/trace.ts). */
const redrawCounts = (by: Record<string, number> | undefined) =>
  Object.entries(by ?? {})
    .sort((a, b) => b[1] - a[1])
    .map(([chart, n]) => `${chart} ${n}`)
    .join(", ");

/** `cores`: the machine's, beside the load average the long tasks ran under. */
export function pageRows(f6: Json, cores: number | undefined): Row[] {
  const out: Row[] = [];
  const f6ok = known(f6.busyShare);
  out.push({
    fig: "6",
    what: `Chromium, target page, full window (${f6.windowTicksAtLoad ?? "?"} ticks), ${f6.svgCharts?.inViewport ?? "?"} charts on screen: main-thread busy`,
    measured: f6ok ? pct(f6.busyShare) : `? ${f6.error ?? ""}`.trim(),
    goal: "<= 15%",
    verdict: verdict(f6ok ? f6.busyShare <= 0.15 : null),
  });
  out.push({
    fig: "6",
    what: "tick arrival to paint (rAF probe), p50 / p95",
    measured: f6ok ? `${fmt(f6.paintP50, 1)} / ${fmt(f6.paintP95, 1)} ms (${f6.ticks} ticks)` : "?",
    goal: "p95 <= 50 ms",
    verdict: verdict(f6ok && known(f6.paintP95) ? f6.paintP95 <= 50 : null),
  });
  out.push({
    fig: "6",
    what: "long tasks (> 50 ms) per 10 s",
    measured: f6ok
      ? `${fmt(f6.longTasksPer10s, 1)} (${f6.longTasks} in ${f6.seconds} s${f6.longTasks ? `; longest ${fmt(f6.longestTaskMs, 0)} ms` : ""})` +
        (f6.longTaskCauses && f6.longTasks
          ? `; event arriving inside them: ${Object.entries(f6.longTaskCauses)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ")}`
          : "") +
        (f6.anatomy?.longTasks
          ? `; in a ${f6.anatomy.seconds} s trace, ${f6.anatomy.longTasks}, by the chart whose redraw began last before each: ${redrawCounts(f6.anatomy.byRedraw)}`
          : "") +
        (Array.isArray(f6.longTaskCpuMs) && f6.longTasks
          ? `; the main thread's own CPU time in each: ${f6.longTaskCpuMs.map((ms: number | null) => (ms === null ? "?" : `${ms}`)).join(", ")} ms`
          : "") +
        (known(f6.maxTaskCpuMs)
          ? `; tasks with over 50 ms of their own CPU: ${f6.tasksOverCpu50} (the most in one task ${f6.maxTaskCpuMs} ms); load ${fmt(f6.load?.before, 1)}-${fmt(f6.load?.after, 1)} on ${cores ?? "?"} cores`
          : "")
      : "?",
    goal: "0",
    verdict: verdict(f6ok ? f6.longTasks === 0 : null),
  });
  const events: Record<string, number> = f6.eventBytesPerSecond ?? {};
  out.push({
    fig: "6",
    what: "the same page's stream: `queries-changes` events (the runs table, sent as changes), and every event type",
    measured: known(events["queries-changes"])
      ? `${fmt(events["queries-changes"] / 1000, 1)} kB/s; ${Object.entries(events)
          .map(([k, v]) => `${k} ${fmt(v / 1000, 1)}`)
          .join(", ")} kB/s`
      : "?",
    goal: "<= 20 kB/s",
    verdict: verdict(known(events["queries-changes"]) ? events["queries-changes"] <= 20_000 : null),
  });
  const dk = f6.desktop ?? {};
  if (known(dk.busyShare)) {
    out.push({
      fig: "6",
      what: "the same page at 1920x1080 (the 4 live charts on screen, no run opened), for context",
      measured: `busy ${pct(dk.busyShare)}; paint ${fmt(dk.paintP50, 1)} / ${fmt(dk.paintP95, 1)} ms; ${fmt(dk.longTasksPer10s, 1)} long tasks per 10 s (longest ${fmt(dk.longestTaskMs, 0)} ms)`,
      goal: "(context)",
      verdict: "n/a",
    });
  }
  return out;
}
