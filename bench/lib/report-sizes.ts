// Figure 9 in the report: a row per server size in the table (the goals),
// a row each for the short scans and the bare reads, and a table of its own
// below it with each part's cadence and what the page said beside it.
import { fmt, known, pct, verdict, type Json, type Row } from "./report-format";
import { MIN_WAIT_EVENTS_PER_SECOND, spanMeetsGoals } from "./size-figures";

const sizeName = (x: Json) => `${x.maxConnections} x ${x.ioMaxConcurrency}`;

/** Within the budget and at >= 9.5 wait-event samples a second, idle and during scans; null when either span is missing. */
function sizeOk(x: Json, budget: number): boolean | null {
  // over the whole span and over its worst 20 s (the budget is to hold in every window)
  const each = [x.idle, x.scans].map((s) => (s ? spanMeetsGoals(s, budget) && !(s.worst20s?.msPerSecond > budget) : null));
  return each.includes(null) ? null : each.every(Boolean);
}

export function sizeRows(f9: Json): Row[] {
  const sizes: Json[] = f9.sizes ?? [];
  const budget: number = f9.budgetMsPerSecond ?? 5;
  if (!sizes.length)
    return [
      {
        fig: "9",
        what: "cost against server size",
        measured: "?",
        goal: `<= ${budget} ms/s, wait events >= ${MIN_WAIT_EVENTS_PER_SECOND}/s`,
        verdict: "not measured",
      },
    ];
  const out: Row[] = sizes.map((x) => ({
    fig: "9",
    what: `cost against server size, max_connections ${x.maxConnections} x io_max_concurrency ${x.ioMaxConcurrency}, one viewer, default settings: all of inflight's server time, no query running / cold scans (the worst 20 s of each); wait events sampled a second`,
    measured: x.error
      ? `? (${String(x.error).slice(0, 160)})`
      : `${fmt(x.idle?.msPerSecond, 3)} / ${fmt(x.scans?.msPerSecond, 3)} ms/s (${fmt(x.idle?.worst20s?.msPerSecond, 2)} / ${fmt(x.scans?.worst20s?.msPerSecond, 2)}); ${fmt(x.idle?.waitEventsPerSecond, 1)} / ${fmt(x.scans?.waitEventsPerSecond, 1)} a second; pg_aios ${fmt(x.scans?.aiosReadsPerSecond, 1)} reads/s at ${fmt(x.scans?.aiosMeanMs, 3)} ms during scans`,
    goal: `<= ${budget} ms/s over every 20 s, >= ${MIN_WAIT_EVENTS_PER_SECOND}/s`,
    verdict: verdict(sizeOk(x, budget)),
  }));
  const each = (f: (x: Json) => string) => sizes.map((x) => `${sizeName(x)}: ${x.error ? "?" : f(x)}`).join("; ");
  out.push({
    fig: "9",
    what: `  cold scans under 1 s seen with async reads in flight, by size`,
    measured: each(
      (x) => `${pct(x.scans?.shortScans?.share)} (${x.scans?.shortScans?.seen ?? "?"} of ${x.scans?.shortScans?.short ?? "?"})`,
    ),
    goal: "(breakdown)",
    verdict: sizes.some((x) => known(x.scans?.shortScans?.share)) ? "n/a" : "not measured",
  });
  out.push({
    fig: "9",
    what: `  one bare read of each, nothing in flight (pgbench -M prepared, one client, -R ${f9.bareRate ?? "?"}, ${f9.bareSeconds ?? "?"} s each): count(*) FROM pg_aios / count(*) FROM pg_stat_get_activity(NULL)`,
    measured: each((x) => `${fmt(x.bare?.aiosCount?.meanMs, 3)} / ${fmt(x.bare?.activityCount?.meanMs, 3)} ms`),
    goal: "(context)",
    verdict: sizes.some((x) => known(x.bare?.aiosCount?.meanMs)) ? "n/a" : "not measured",
  });
  return out;
}

/** Figure 9's own table: each part's cadence and cost by size, the page's figures beside pg_stat_statements'. */
export function sizeTable(f9: Json): string {
  const sizes: Json[] = f9.sizes ?? [];
  if (!sizes.length) return "";
  const lines = [
    `Figure 9 by server size (one inflight, defaults: INFLIGHT_BUDGET ${f9.budgetMsPerSecond ?? "?"} ms/s, 100 ms cadence, one viewer; server time of every statement of its role from pg_stat_statements, the page's own \`cost\` at the span's end in brackets; bare reads: pgbench -M prepared, one client, -R ${f9.bareRate ?? "?"}, mean execution time from pg_stat_statements, pgbench's own latency average in brackets, round trip and -R schedule lag included):`,
    "",
    "| max_connections x io_max_concurrency | no query running: ms/s (page) | cold scans: ms/s, its worst 20 s (page) | wait events a second: idle / scans (burst samples during scans) | pg_aios during scans: reads a second, ms a read (page: every, ms a read) | short scans seen | bare `count(*) FROM pg_aios` | bare `pg_stat_get_activity(NULL)` |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const x of sizes) {
    if (x.error) {
      lines.push(`| ${sizeName(x)} | ? (${String(x.error).slice(0, 120)}) | | | | | | |`);
      continue;
    }
    const i = x.idle ?? {};
    const s = x.scans ?? {};
    const b = x.bare ?? {};
    const bare = (y: Json | undefined) => `${fmt(y?.meanMs, 3)} ms (${fmt(y?.pgbenchLatencyMs, 3)})`;
    lines.push(
      `| ${sizeName(x)} | ${fmt(i.msPerSecond, 2)} (${fmt(i.page?.msPerSecond, 2)}) | ${fmt(s.msPerSecond, 2)}, ${fmt(s.worst20s?.msPerSecond, 2)} (${fmt(s.page?.msPerSecond, 2)}) | ${fmt(i.waitEventsPerSecond, 1)} / ${fmt(s.waitEventsPerSecond, 1)} (${fmt(s.burstPerSecond, 1)}/s) | ` +
        `${fmt(s.aiosReadsPerSecond, 1)}, ${fmt(s.aiosMeanMs, 3)} ms (${s.page?.aiosIntervalMs ?? "?"} ms, ${fmt(s.page?.aiosMsPerRead, 3)} ms) | ${pct(s.shortScans?.share)} (${s.shortScans?.seen ?? "?"} of ${s.shortScans?.short ?? "?"}) | ${bare(b.aiosCount)} | ${bare(b.activityCount)} |`,
    );
  }
  return lines.join("\n");
}
