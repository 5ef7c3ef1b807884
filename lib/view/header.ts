// The target page's header in words: the target's state (inflight's
// connection, apart from the server's own start), what watching costs the
// server, the health of each collection aspect, and the io workers now.
import type { AspectHealth, TargetInfo, WatchCost } from "@/lib/schemas/target";
import type { QueryRun } from "@/lib/schemas/runs";
import type { Tick } from "@/lib/schemas/tick";
import { ASPECT_NAMES } from "@/lib/model/window/findings/server";
import { byCodePoint, formatAgo, formatClock, formatDuration, formatNumber } from "@/lib/format";

const STATUS_WORDS = { up: "connected since", starting: "connecting since", down: "down since" } as const satisfies Record<
  TargetInfo["status"],
  string
>;

/** "connected since 10:26:09 (1 min ago)": when inflight's connection began (or was lost), never the server's start. */
export function sinceText(target: Pick<TargetInfo, "status" | "statusSince">, now: number | null): string {
  return `${STATUS_WORDS[target.status]} ${formatClock(target.statusSince)}${now !== null ? ` (${formatAgo(target.statusSince, now)})` : ""}`;
}

/** "up · connected since 10:26:09 (1 min ago)"; "down since 10:41:02 (3 s ago)". */
export function statusText(target: Pick<TargetInfo, "status" | "statusSince">, now: number | null): string {
  const since = sinceText(target, now);
  return target.status === "down" ? since : `${target.status} · ${since}`;
}

/** "07:20:11 (2 h 5 min ago)": pg_postmaster_start_time(); null before it is known. */
export function serverStarted(target: Pick<TargetInfo, "postmasterStart">, now: number | null): string | null {
  if (target.postmasterStart === null) return null;
  return `${formatClock(target.postmasterStart)}${now !== null ? ` (${formatAgo(target.postmasterStart, now)})` : ""}`;
}

/** The demo badge, unless the name already says it ("demo" beside "demo" read as "demodemo"). */
export function demoBadge(target: Pick<TargetInfo, "demo" | "name">): string | null {
  if (!target.demo) return null;
  return /demo/i.test(target.name) ? null : "demo";
}

/** 0.18 -> "0.2%": share of one core, from ms of server time per second. */
export function coreShare(msPerSecond: number): string {
  const pct = msPerSecond / 10;
  if (pct <= 0) return "0%";
  if (pct < 0.1) return "<0.1%";
  return `${pct < 10 ? pct.toFixed(1) : Math.round(pct)}%`;
}

const ms = (n: number) => `${formatNumber(n, n < 1 ? 2 : 1)} ms`;

export interface CostView {
  /** "watching costs 1.8 ms/s of server time" */
  summary: string;
  /** "0.2% of a core" */
  core: string;
  /** "pg_aios every 300 ms: 3.3 ms a read here"; null before a read */
  aios: string | null;
  /** "within the 5 ms/s budget, INFLIGHT_BUDGET" or "over the 5 ms/s budget, INFLIGHT_BUDGET, in the last 10 s" */
  budget: string;
  over: boolean;
  /** why a cadence is slower than asked */
  note: string | null;
  /** per statement, costliest first */
  rows: { statement: string; perCall: string; rate: string; perSecond: string; source: string }[];
}

/**
 * How often pg_aios is read, in the one phrase the cost line and the
 * in-flight chart both use: its own interval while backends run (the budget
 * may space it out past the samples), or, without one in the last 10 s, with
 * the samples.
 */
export function aiosReadEvery(sampleMs: number, aios: Pick<WatchCost["aios"], "intervalMs" | "skipped">): string {
  if (aios.intervalMs === null && aios.skipped > 0)
    return `not read in the last 10 s: the budget put off its ${aios.skipped} read${aios.skipped === 1 ? "" : "s"}`;
  if (aios.intervalMs === null) return `read with the samples (every ${formatDuration(sampleMs)}) while a backend is active`;
  const spaced = aios.intervalMs > sampleMs * 1.5;
  return `read every ${formatDuration(aios.intervalMs)} while backends run${spaced ? `, not every sample (every ${formatDuration(sampleMs)}): the budget spaces it out` : ""}`;
}

export function costView(cost: WatchCost): CostView {
  const { aios } = cost;
  const skipped = aios.skipped ? `${aios.skipped} read${aios.skipped === 1 ? "" : "s"} put off by the budget in the last 10 s` : "";
  const aiosText =
    aios.msPerRead === null
      ? null
      : aios.intervalMs !== null
        ? `pg_aios every ${formatDuration(aios.intervalMs)}: ${ms(aios.msPerRead)} a read here${skipped ? `, ${skipped}` : ""}`
        : skipped
          ? `pg_aios ${ms(aios.msPerRead)} a read here: ${skipped}`
          : `pg_aios ${ms(aios.msPerRead)} a read here, read only while a backend is active (none in the last 10 s)`;
  const over = cost.msPerSecond > cost.budgetMsPerSecond;
  return {
    summary: `watching costs ${formatNumber(cost.msPerSecond, 1)} ms/s of server time`,
    core: `${coreShare(cost.msPerSecond)} of a core`,
    aios: aiosText,
    budget: `${over ? "over" : "within"} the ${formatNumber(cost.budgetMsPerSecond)} ms/s budget, INFLIGHT_BUDGET${over ? `, in the last ${cost.spanS} s` : ""}`,
    over,
    note: cost.note,
    rows: [...cost.statements]
      .sort((a, b) => b.msPerSecond - a.msPerSecond || byCodePoint(a.statement, b.statement))
      .map((s) => ({
        statement: s.statement,
        perCall: ms(s.msPerCall),
        rate: `${formatNumber(s.callsPerSecond)}/s`,
        perSecond: `${formatNumber(s.msPerSecond, 2)} ms/s`,
        source: s.source === "pg_stat_statements" ? "exact (pg_stat_statements)" : "estimated (round trip less a ping)",
      })),
  };
}

export type AspectTone = "bad" | "muted";

export interface AspectsView {
  /** every aspect read fine: one short line */
  allOk: boolean;
  /** an aspect fails, or nothing is read (the target is down) */
  degraded: boolean;
  items: { aspect: AspectHealth["aspect"]; state: AspectHealth["state"]; tone: AspectTone; text: string }[];
}

const firstLine = (s: string) => s.split("\n")[0].trim();

/**
 * Degraded aspects as themselves ("pg_stat_io: permission denied since
 * 07:40:12"), unavailable ones with why. While the target is down nothing is
 * read: that, not the aspects' last states ("all fine"), is what to say.
 */
export function aspectsView(aspects: readonly AspectHealth[], target?: Pick<TargetInfo, "status" | "statusSince">): AspectsView {
  if (target && target.status !== "up") {
    const what =
      target.status === "down"
        ? `nothing read since ${formatClock(target.statusSince)}: the target is down`
        : "nothing read yet: connecting";
    return { allOk: false, degraded: true, items: [{ aspect: "sampling", state: "failing", tone: "bad", text: what }] };
  }
  const items = aspects
    .filter((a) => a.state !== "ok")
    .map((a) => {
      const name = ASPECT_NAMES[a.aspect];
      if (a.state === "failing")
        return {
          aspect: a.aspect,
          state: a.state,
          tone: "bad" as const,
          text: `${name}: ${firstLine(a.lastError ?? "failing")} since ${formatClock(a.since)}`,
        };
      if (a.state === "unavailable")
        return {
          aspect: a.aspect,
          state: a.state,
          tone: "muted" as const,
          text: `${name}: not available${a.note ? `: ${firstLine(a.note)}` : ""}`,
        };
      // Not a fault: pg_aios waits for an active backend, the slower aspects for their first turn.
      return {
        aspect: a.aspect,
        state: a.state,
        tone: "muted" as const,
        text: `${name}: not read yet${a.aspect === "aios" ? " (read only while a backend is active)" : ""}`,
      };
    })
    // Failing first: it is the one that hides figures.
    .sort((a, b) => Number(b.state === "failing") - Number(a.state === "failing"));
  return { allOk: items.length === 0, degraded: items.some((i) => i.state === "failing"), items };
}

export interface WorkersNow {
  /** "1 of 3 busy"; "none, by design: under io_method = io_uring ..." */
  text: string;
  /** what fits a header cell: "1 of 3 busy", "none, by design" */
  short: string;
  busy: number | null;
  alive: number | null;
  /** why there are none; null under io_method = worker */
  byDesign: string | null;
  /** 19's pool: "io workers 4 of up to 8 (pool grows on demand)"; null on 18 */
  pool: string | null;
}

const BY_DESIGN = {
  sync: "none, by design: under io_method = sync each backend reads for itself",
  io_uring: "none, by design: under io_method = io_uring each backend submits its reads to the kernel",
} as const;

/**
 * The io workers in one sample: the header and the io workers panel both
 * say this, from the same newest sample, so they never disagree.
 */
/**
 * `configuredNow`: io_workers as the settings say now, when it is to be shown
 * beside the sample (the io workers panel: a reload is on the page at once,
 * while the sample shown is the findings' moment); else the sample's own.
 */
export function workersNow(tick: Tick | null, ioMethod: string | null, configuredNow?: number | null): WorkersNow {
  if (ioMethod === "sync" || ioMethod === "io_uring") {
    return {
      text: BY_DESIGN[ioMethod],
      short: "none, by design",
      busy: tick ? tick.workers.busy : null,
      alive: tick ? tick.workers.alive : null,
      byDesign: BY_DESIGN[ioMethod],
      pool: null,
    };
  }
  if (!tick) return { text: "no sample yet", short: "–", busy: null, alive: null, byDesign: null, pool: null };
  const { busy, alive, max } = tick.workers;
  const configured = configuredNow === undefined ? tick.workers.configured : configuredNow;
  const text = `${busy} of ${alive} busy`;
  if (max !== undefined) {
    // 19 sizes the pool itself: any count up to io_max_workers is as asked.
    const pool = `io workers ${alive} of up to ${max} (pool grows on demand)`;
    return { text: `${text}; ${pool}`, short: text, busy, alive, byDesign: null, pool };
  }
  const short = configured !== null && configured !== alive ? ` (io_workers = ${configured})` : "";
  return { text: `${text}${short}`, short: text, busy, alive, byDesign: null, pool: null };
}

/** What a run's backend is called beside the running queries: the ones the header counts apart. */
const BESIDE_QUERIES: Record<string, string> = { "autovacuum worker": "autovacuum", "background worker": "background worker" };

/**
 * Runs in the sample that are not client backends' queries (autovacuum, a
 * background worker), by the name their backend type goes by: "1 autovacuum".
 * The header's running queries count client backends only, so reads in
 * flight with 0 running queries would otherwise have no owner on the page.
 * `runs`: the runs the page knows (a run too new for them is not counted yet).
 */
export function besideQueries(tick: Pick<Tick, "runs"> | null, runs: readonly Pick<QueryRun, "id" | "backendType">[]): string | null {
  if (!tick?.runs.length) return null;
  // A sample's runs are few: each looked up, rather than an index of every run at every tick.
  const counts = new Map<string, number>();
  for (const { id } of tick.runs) {
    const name = BESIDE_QUERIES[runs.find((r) => r.id === id)?.backendType ?? ""];
    if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts.size ? [...counts].map(([name, n]) => `${n} ${name}`).join(" · ") : null;
}
