// The table: printed, and written into BENCHMARKS.md between two markers so
// the hand-written analysis around it survives the next run.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fmt, known, mb, pct, signedPct, verdict, type Json, type Row } from "./report-format";
import { fleetRows, fleetTable } from "./report-fleet";
import { pageRows } from "./report-page";
import { sizeRows, sizeTable } from "./report-sizes";
import { pgwsRows } from "./report-pgws";
import { timeLeftRows } from "./report-time-left";

export const BEGIN = "<!-- bench:begin (written by npm run bench; edit outside these markers) -->";
export const END = "<!-- bench:end -->";

/** A statement of inflight against the same file bare: "0.120 vs 0.125 ms (4200 / 4210 calls): ratio 0.96". */
const sideBySide = (x: Json | undefined) =>
  `${fmt(x?.inflightMeanMs, 3)} vs ${fmt(x?.pgbenchMeanMs, 3)} ms (${x?.inflightCalls ?? "?"} / ${x?.pgbenchCalls ?? "?"} calls): ratio ${fmt(x?.ratio)}`;

/** The costliest statements of a span: "activity 1.10, aios 0.30, stat_io 0.12 ms/s". */
const topStatements = (xs: Json[] | undefined, n = 4) =>
  (xs ?? [])
    .slice(0, n)
    .map((x) => `${x.file} ${fmt(x.msPerSecond, 2)}`)
    .join(", ") + " ms/s";

/** `pgActivity`: pg_activity's server time per second in the same run (figure 8), which the goal is set against. */
function figure1Rows(f1: Json, pgActivity: number | undefined): Row[] {
  const s = f1.sampling ?? {};
  const q = f1.quiet ?? {};
  const qs = q.sampling ?? {};
  const bare = f1.bareMeanMs ?? {};
  const qbare = q.bareMeanMs ?? {};
  const cpu10 = f1.backendCpu10?.shareOfCore;
  return [
    {
      fig: "1",
      what: "activity.sql (pg_stat_get_activity(NULL), every tick), mean execution time: inflight vs the same file bare (pgbench -M prepared, ~10/s, same run), during cold scans",
      measured: sideBySide(s.activity),
      goal: "ratio <= 1.2",
      verdict: verdict(known(s.activity?.ratio) ? s.activity.ratio <= 1.2 : null),
    },
    {
      fig: "1",
      what: "aios.sql (pg_aios, while a backend is active, within the budget): inflight vs the same file bare, during cold scans",
      measured: sideBySide(s.aios),
      goal: "(context: inflight reads it while a backend is active, pgbench at any moment)",
      verdict: known(s.aios?.inflightMeanMs) ? "n/a" : "not measured",
    },
    {
      fig: "1",
      what: "the same with no query running (the same observers, before the scans): activity.sql; aios.sql calls by inflight; backend CPU",
      measured: `${sideBySide(qs.activity)}; aios.sql ${qs.aios?.inflightCalls ?? "?"} calls; backend CPU ${pct(q.backendCpu10, 2)}`,
      goal: "(context)",
      verdict: known(qs.activity?.inflightMeanMs) ? "n/a" : "not measured",
    },
    {
      fig: "1",
      what: "run bare beside them (pgbench), for context: the view pg_stat_activity with activity.sql's columns / SELECT 1, during scans (no query running)",
      measured: `${fmt(bare.view, 3)} (${fmt(qbare.view, 3)}) / ${fmt(bare.select1, 3)} (${fmt(qbare.select1, 3)}) ms`,
      goal: "(context)",
      verdict: known(bare.view) ? "n/a" : "not measured",
    },
    {
      fig: "1",
      what: "all of inflight's server time per second watched at 10/s during cold scans (every statement of its role)",
      measured: `${fmt(f1.serverMsPerSecond10, 3)} ms/s (${fmt(f1.statementsPerSecond10, 1)} statements/s: ${topStatements(f1.byStatement10)})`,
      goal: `<= 1.6 ms/s (pg_activity in the same run: ${fmt(pgActivity, 2)} ms/s, figure 8)`,
      verdict: verdict(known(f1.serverMsPerSecond10) ? f1.serverMsPerSecond10 <= 1.6 : null),
    },
    {
      fig: "1",
      what: "the same with no query running",
      measured: `${fmt(q.serverMsPerSecond10, 3)} ms/s (${topStatements(q.byStatement10)})`,
      goal: "<= 1.5 ms/s",
      verdict: verdict(known(q.serverMsPerSecond10) ? q.serverMsPerSecond10 <= 1.5 : null),
    },
    {
      fig: "1",
      what: "CPU of inflight's backend at 10/s (/proc utime+stime)",
      measured: `${pct(cpu10, 2)} of one core`,
      goal: "<= 0.5% at 10/s",
      verdict: verdict(known(cpu10) ? cpu10 <= 0.005 : null),
    },
  ];
}

export function rows(r: Json): Row[] {
  const out: Row[] = [];
  const f1 = r.fig1 ?? {};
  out.push(...figure1Rows(f1, r.fig8?.pgActivity?.serverMsPerSecond));
  const rates: Json[] = r.fig2?.rates ?? [];
  const at = (rate: number) => rates.find((x) => x.rate === rate);
  const r50 = at(50);
  out.push({
    fig: "1",
    what: "CPU of inflight's backend at 50/s",
    measured: `${pct(r50?.backendCpu, 2)} of one core`,
    goal: "(none; 10/s x5 for scale)",
    verdict: known(r50?.backendCpu) ? "n/a" : "not measured",
  });
  for (const [rate, goal] of [
    [10, 0.99],
    [50, 0.95],
    [100, null],
  ] as const) {
    const x = at(rate);
    out.push({
      fig: "2",
      what: `achieved sampling rate at ${rate}/s during cold scans (collector's samples over slots)${x?.budgetMsPerSecond && rate > 10 ? `, INFLIGHT_BUDGET ${x.budgetMsPerSecond} ms/s so that the budget does not decide it` : ""}`,
      measured: x
        ? `${pct(x.achievedShare, 2)} (${x.samples} of ${x.expected}; ${x.missed} missed; SSE ${pct(x.sseShare, 2)}${known(x.sseBurstTicks) ? ` of the slots' ticks, beside ${x.sseBurstTicks} burst ticks (${x.burstSamples} burst samples)` : known(x.burstSamples) ? `, less ${x.burstSamples} burst samples` : ""})`
        : "?",
      goal: goal === null ? "(none)" : `>= ${goal * 100}%`,
      verdict: !x ? "not measured" : goal === null ? "n/a" : verdict(x.achievedShare >= goal),
    });
  }
  const f3 = r.fig3 ?? {};
  out.push({
    fig: "3",
    what: "statements/s on the target by inflight's role, 1 vs 50 SSE viewers (pg_aios while a backend is active and the bursts follow the scans, not the viewers)",
    measured:
      `${fmt(f3.oneViewer?.perSecond)} vs ${fmt(f3.fiftyViewers?.perSecond)}: ratio ${fmt(f3.ratio)}; wait-event samples ${fmt(f3.oneViewer?.samplesPerSecond)} vs ${fmt(f3.fiftyViewers?.samplesPerSecond)} a second` +
      (f3.serverProcessCpu
        ? `; inflight server CPU ${pct(f3.serverProcessCpu.oneViewer)} -> ${pct(f3.serverProcessCpu.fiftyViewers)} of a core`
        : "") +
      (f3.samplesWithFifty ? `; ${f3.samplesWithFifty.missed} ticks missed with 50` : ""),
    goal: "ratio 0.95-1.05",
    verdict: verdict(known(f3.ratio) ? Math.abs(f3.ratio - 1) <= 0.05 : null),
  });
  const f4 = r.fig4 ?? {};
  const fresh = (x: Json | undefined) => (x ? `p50 ${fmt(x.p50, 1)} / p95 ${fmt(x.p95, 1)} ms` : "?");
  out.push({
    fig: "4",
    what: "freshness at 10/s, tick.t to arrival: 1 SSE client (Node) / 50 clients / Chromium page",
    measured: `${fresh(f4.oneViewer)}; ${fresh(f4.fiftyViewers)}; ${fresh(f4.browser)}`,
    goal: "p95 <= 250 ms",
    verdict: verdict(
      known(f4.oneViewer?.p95) ? [f4.oneViewer, f4.fiftyViewers, f4.browser].filter(Boolean).every((x: Json) => x.p95 <= 250) : null,
    ),
  });
  const f5 = r.fig5 ?? {};
  out.push({
    fig: "5",
    what: `server RSS (60 s window, 10/s): the most any minute held, the window's first (filling) -> the last minute read; the median of the 10 s up to the window just filled -> after as long again`,
    measured:
      (f5.peaks
        ? `peaks ${mb(f5.peaks.firstWindow)} (first minute) -> ${mb(f5.peaks.secondWindow)} (second) -> ${mb(f5.peaks.lastMinute)} (at ${Math.round(f5.late.afterSeconds / 60)} min): ${signedPct(f5.peaks.growth)}; `
        : "") +
      `10 s medians ${mb(f5.rssAtFill)} -> ${mb(f5.rssAfter)}: ${signedPct(f5.growth)}` +
      (f5.late?.rss
        ? `, after ${Math.round(f5.late.afterSeconds / 60)} min ${mb(f5.late.rss)} (${signedPct(f5.late.growthFromFill)})`
        : "") +
      (f5.serverA?.rssFullWindow
        ? `; 10/s server with its 15 min window full: ${mb(f5.serverA.rssFullWindow)} (${mb(f5.serverA.rssAtStart)} at its start)`
        : ""),
    goal: "growth <= 10%",
    verdict: verdict(known(f5.peaks?.growth) ? f5.peaks.growth <= 0.1 : null),
  });
  out.push(...pageRows(r.fig6 ?? {}, r.machine?.cores));
  const f7 = r.fig7 ?? {};
  out.push({
    fig: "7",
    what: `cold sequential scans under 1 s (${f7.short ?? "?"} of ${f7.scans ?? "?"}, median ${fmt(f7.shortMsP50, 0)} ms) seen with async reads in flight: 10/s vs 1/s`,
    measured: `${pct(f7.at10?.share)} (${f7.at10?.aio ?? "?"}) vs ${pct(f7.at1?.share)} (${f7.at1?.aio ?? "?"})`,
    goal: ">= 99% at 10/s",
    verdict: verdict(known(f7.at10?.share) ? f7.at10.share >= 0.99 : null),
  });
  for (const b of (f7.byTable ?? []) as Json[]) {
    out.push({
      fig: "7",
      what: `  of them, ${b.table} (${b.scans} scans, median ${fmt(b.msP50, 0)} ms): 10/s / 1/s / pg_activity`,
      measured: `${b.at10} / ${b.at1} / ${b.pgActivity} (${pct(b.at10 / b.scans)} / ${pct(b.at1 / b.scans)} / ${pct(b.pgActivity / b.scans)})`,
      goal: "(breakdown)",
      verdict: "n/a",
    });
  }
  for (const b of (f7.byDuration ?? []) as Json[]) {
    if (!b.scans) continue;
    out.push({
      fig: "7",
      what: `  of them, scans of ${b.ms} ms (${b.scans}): 10/s / 1/s / pg_activity`,
      measured: `${pct(b.at10)} / ${pct(b.at1)} / ${pct(b.pgActivity)}`,
      goal: "(breakdown)",
      verdict: "n/a",
    });
  }
  out.push({
    fig: "7",
    what: "  A's burst samples over the scans (three between the slots when a statement starts, within the budget)",
    measured: `${f7.burstA?.samples ?? "?"} (${fmt(f7.burstA?.perScan, 2)} a scan)`,
    goal: "(context)",
    verdict: known(f7.burstA?.samples) ? "n/a" : "not measured",
  });
  const f8 = r.fig8 ?? {};
  out.push({
    fig: "8",
    what: "server time per second watched: inflight 10/s vs pg_activity 0.5 s (own roles, same run)",
    measured: `${fmt(f8.inflight10?.serverMsPerSecond, 3)} vs ${fmt(f8.pgActivity?.serverMsPerSecond, 3)} ms/s: ratio ${fmt(f8.ratios?.serverTime)}`,
    goal: "(comparison)",
    verdict: known(f8.ratios?.serverTime) ? "n/a" : "not measured",
  });
  out.push({
    fig: "8",
    what: "short scans shown: inflight 10/s (async reads seen) vs pg_activity (scan in its list)",
    measured: `${pct(f8.inflight10?.share)} vs ${pct(f8.pgActivity?.share)} (${f8.pgActivity?.shortScansShown ?? "?"} of ${f7.short ?? "?"}): ratio ${fmt(f8.ratios?.shortScansSeen)}`,
    goal: "(comparison)",
    verdict: known(f8.pgActivity?.share) ? "n/a" : "not measured",
  });
  out.push(...sizeRows(r.fig9 ?? {}));
  out.push(...(r.fig10 ? fleetRows(r.fig10) : []), ...(r.fig11 ? timeLeftRows(r.fig11) : []));
  out.push(...(r.fig12 ? pgwsRows(r.fig12) : []));
  return out;
}

export function table(r: Json): string {
  const lines = ["| # | figure | measured | goal | verdict |", "|---|---|---|---|---|"];
  for (const x of rows(r))
    lines.push(`| ${x.fig} | ${x.what} | ${x.measured} | ${x.goal} | ${x.verdict === "MISSED" ? "**MISSED**" : x.verdict} |`);
  return lines.join("\n");
}

function block(r: Json): string {
  const m = r.machine ?? {};
  const loads: Json[] = r.load ?? [];
  const loadText = loads.map((l) => `${l.phase} ${l.loadavg?.[0]}`).join(", ");
  const missed = rows(r).filter((x) => x.verdict === "MISSED" || x.verdict === "not measured");
  const missedText = [
    ...new Set(missed.map((x) => `${x.fig} (${x.what.split(/[(:,]/)[0].trim()}${x.verdict === "not measured" ? ": not measured" : ""})`)),
  ].join("; ");
  const t = r.tools ?? {};
  return [
    BEGIN,
    `Run ${r.startedAt}, command \`${r.command}\`${r.config?.quick ? " (QUICK mode: not a full run)" : ""}: ${((r.totalSeconds ?? r.durationSeconds ?? 0) / 60).toFixed(1)} min in all` +
      (r.totalSeconds
        ? ` (${((r.totalSeconds - r.durationSeconds) / 60).toFixed(1)} min build check and start, ${(r.durationSeconds / 60).toFixed(1)} min measuring).`
        : "."),
    "",
    `Machine: ${m.cores} cores (${m.cpuModel}), ${mb(m.memoryBytes)} memory, ${m.kernel}, Node ${m.node}. ` +
      `Other work on the machine during the run, if any, shows in the 1-minute load average at the start and end of each phase: ${loadText}.`,
    "",
    `Target: ${t.postgres?.split(" on ")[0] ?? "?"} (embedded, max_connections 60, shared_buffers 32 MB, io_method worker), cold scans of ${r.target?.table} (${r.target?.tableSize}) and ${r.target?.smallTable} (${r.target?.smallTableSize}) in turn; ${t.pgbench}; ${t.pg_activity}; ${t.chromium}. Build ${r.buildId ?? "?"}.`,
    "",
    table(r),
    "",
    sizeTable(r.fig9 ?? {}),
    "",
    r.fig10 ? fleetTable(r.fig10) + "\n" : "",
    missed.length ? `Missed its goal (or not measured) in this run: figure ${missedText}.` : "Every figure met its goal in this run.",
    r.errors?.length ? `\nErrors during the run:\n${r.errors.map((e: string) => `- ${e.split("\n")[0]}`).join("\n")}` : "",
    "",
    "Raw figures: bench/results.json.",
    END,
  ].join("\n");
}

export function writeReport(r: Json, opts: { root: string; quick: boolean }): void {
  console.log("\n" + table(r) + "\n");
  const file = path.join(opts.root, opts.quick ? "bench/tmp/BENCHMARKS.quick.md" : "BENCHMARKS.md");
  const generated = block(r);
  let text: string;
  if (existsSync(file)) {
    const old = readFileSync(file, "utf8");
    const a = old.indexOf(BEGIN);
    const b = old.indexOf(END);
    text = a >= 0 && b > a ? old.slice(0, a) + generated + old.slice(b + END.length) : `${old.trimEnd()}\n\n${generated}\n`;
  } else {
    text = `# Benchmarks\n\n\`npm run bench\` (see bench/run.ts for what each figure measures and how).\n\n${generated}\n`;
  }
  writeFileSync(file, text);
  console.log(`wrote ${path.relative(opts.root, file)}`);
}
