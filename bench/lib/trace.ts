// What the page's long tasks are made of: a Chromium trace (the DevTools
// timeline's events) of a few seconds, and for every task of the renderer's
// main thread over 50 ms, the self time of each kind of work inside it (the
// script, style, layout, paint, layerize, commit, garbage collection), so a
// long task is named by what it did, not only by which stream event it held.
import type { Browser, Page } from "@playwright/test";

const CATEGORIES = ["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "v8.execute", "blink.user_timing"].join(
  ",",
);
const LONG_MS = 50;

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  /** thread time (µs): the time the thread ran, when the trace has thread clocks */
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { frame?: string; type?: string; functionName?: string; url?: string } };
}

export interface TaskAnatomy {
  seconds: number;
  /** tasks of the main thread over 50 ms in the trace */
  longTasks: number;
  longestMs: number | null;
  /** ms of self time inside those tasks, by kind of work, largest first */
  inLongTasks: { work: string; ms: number }[];
  /** the same over every task of the main thread, for scale */
  allTasks: { work: string; ms: number }[];
  /** every long task: its length, its two largest kinds of work, and the chart redraw it belongs to */
  tasks: { ms: number; top: string; redraw: string | null }[];
  /** long tasks by the chart whose redraw began last before they ended (within REDRAW_REACH_MS), or "(no redraw)" */
  byRedraw: Record<string, number>;
}

/** A chart's redraw runs over a few tasks after its mark (the transition, then recharts' own renders). */
const REDRAW_REACH_MS = 300;
const REDRAW_MARK = "inflight redraw: ";

/** A top-level task of a thread's message loop (its name differs between Chromium versions). */
const isTask = (name: string) => name === "RunTask" || name === "ThreadControllerImpl::RunTask";

/** The renderer's main thread, from the trace's thread names. */
function mainThread(events: readonly TraceEvent[]): TraceEvent {
  const main = events.find((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain");
  if (!main) throw new Error("trace: no CrRendererMain thread");
  return main;
}

/** Groups trace event names into the kinds of work the figure names. */
export function workOf(name: string): string {
  if (
    /^(FunctionCall|EvaluateScript|v8\.|V8\.|TimerFire|FireAnimationFrame|EventDispatch|RunMicrotasks|XHRReadyStateChange|HandlePostMessage)/.test(
      name,
    )
  )
    return "script";
  if (/^(UpdateLayoutTree|RecalculateStyles|ScheduleStyleRecalculation|ParseAuthorStyleSheet)/.test(name)) return "style";
  if (/^(Layout|UpdateLayerTree|LayoutShift|IntersectionObserverController|ResizeObserverController)/.test(name)) return "layout";
  if (/^(PrePaint|Paint|PaintImage|RasterTask|Decode)/.test(name)) return "paint";
  if (/^(Layerize|UpdateLayer|CompositeLayers)/.test(name)) return "layerize";
  if (/^(Commit|ScrollLayer)/.test(name)) return "commit";
  if (/GC|Scavenge|MarkCompact|BlinkGC/.test(name)) return "gc";
  if (isTask(name)) return "task (other)";
  return "other";
}

/**
 * Self time per kind of work of each task on `tid`: complete events (ph X)
 * nested by time, each event's own time less its children's.
 */
export function anatomy(events: readonly TraceEvent[], tid: number, pid: number): { ts: number; ms: number; work: Map<string, number> }[] {
  const mine = events
    .filter((e) => e.ph === "X" && e.tid === tid && e.pid === pid && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const tasks: { ts: number; ms: number; work: Map<string, number> }[] = [];
  let stack: { end: number; work: string; childUs: number; dur: number }[] = [];
  let current: { ts: number; ms: number; work: Map<string, number> } | null = null;
  const close = (upTo: number) => {
    while (stack.length && stack.at(-1)!.end <= upTo) {
      const top = stack.pop()!;
      current?.work.set(top.work, (current.work.get(top.work) ?? 0) + (top.dur - top.childUs) / 1000);
      if (stack.length) stack.at(-1)!.childUs += top.dur;
    }
  };
  for (const e of mine) {
    close(e.ts);
    if (!stack.length) {
      if (!isTask(e.name)) continue; // work outside a task: not a task of the thread
      current = { ts: e.ts, ms: e.dur! / 1000, work: new Map() };
      tasks.push(current);
      stack = [];
    }
    stack.push({ end: e.ts + e.dur!, work: workOf(e.name), childUs: 0, dur: e.dur! });
  }
  close(Infinity);
  return tasks;
}

const sorted = (m: Map<string, number>) =>
  [...m]
    .map(([work, ms]) => ({ work, ms: Math.round(ms) }))
    .filter((w) => w.ms > 0)
    .sort((a, b) => b.ms - a.ms);

/** A trace of `seconds` of the page as it runs, and what its long tasks were made of. */
export async function traceLongTasks(browser: Browser, page: Page, seconds: number): Promise<TaskAnatomy> {
  await browser.startTracing(page, { categories: CATEGORIES.split(",") });
  await page.waitForTimeout(seconds * 1000);
  const buffer = await browser.stopTracing();
  const parsed = JSON.parse(buffer.toString("utf8")) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const main = mainThread(events);
  const tasks = anatomy(events, main.tid, main.pid);
  const long = tasks.filter((t) => t.ms > LONG_MS);
  const marks = events
    .filter((e) => e.tid === main.tid && e.pid === main.pid && e.ph !== "X" && e.name.startsWith(REDRAW_MARK))
    .map((e) => ({ ts: e.ts, chart: e.name.slice(REDRAW_MARK.length) }))
    .sort((a, b) => a.ts - b.ts);
  const redrawOf = (t: { ts: number; ms: number }) =>
    marks.findLast((m) => m.ts <= t.ts + t.ms * 1000 && m.ts >= t.ts - REDRAW_REACH_MS * 1000)?.chart ?? null;
  const byRedraw: Record<string, number> = {};
  for (const t of long) {
    const chart = redrawOf(t) ?? "(no redraw)";
    byRedraw[chart] = (byRedraw[chart] ?? 0) + 1;
  }
  const sum = (list: typeof tasks) => {
    const m = new Map<string, number>();
    for (const t of list) for (const [w, ms] of t.work) m.set(w, (m.get(w) ?? 0) + ms);
    return m;
  };
  return {
    seconds,
    longTasks: long.length,
    longestMs: long.length ? Math.round(Math.max(...long.map((t) => t.ms))) : null,
    inLongTasks: sorted(sum(long)),
    allTasks: sorted(sum(tasks)),
    tasks: long.map((t) => ({
      ms: Math.round(t.ms),
      top: sorted(t.work)
        .slice(0, 2)
        .map((w) => `${w.work} ${w.ms}`)
        .join(", "),
      redraw: redrawOf(t),
    })),
    byRedraw,
  };
}

/**
 * The main thread's own CPU time in each of the page's long tasks. A task's
 * length (what the longtask observer reports) is wall time: on a machine
 * whose cores are shared with the server under test, PostgreSQL and the
 * scans, the renderer's main thread can wait for a core inside a task. The
 * trace's thread clock (`tdur`, CLOCK_THREAD_CPUTIME_ID) counts only the
 * time the thread ran, which is what the page's own work cost.
 */
export interface TaskClock {
  /** the main thread's top-level tasks, in the page's performance.now() time */
  tasks: { start: number; ms: number; cpuMs: number | null }[];
}

/** Where a trace's clock (µs) and the page's performance.now() (ms) meet: a mark placed at a known performance.now(). */
export const CLOCK_MARK = "bench: clock";

/** The main thread's top-level tasks of a trace, with their thread time, on the page's clock. */
export function taskClock(events: readonly TraceEvent[], markAtMs: number): TaskClock {
  const main = mainThread(events);
  const mark = events.find((e) => e.name === CLOCK_MARK && e.pid === main.pid);
  if (!mark) throw new Error(`trace: no "${CLOCK_MARK}" mark`);
  const offsetMs = mark.ts / 1000 - markAtMs;
  const tasks: TaskClock["tasks"] = [];
  let end = -Infinity;
  const mine = events
    .filter((e) => e.ph === "X" && e.tid === main.tid && e.pid === main.pid && e.dur !== undefined && isTask(e.name))
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  for (const e of mine) {
    if (e.ts < end) continue; // nested in the task before it
    end = e.ts + e.dur!;
    tasks.push({ start: e.ts / 1000 - offsetMs, ms: e.dur! / 1000, cpuMs: e.tdur === undefined ? null : e.tdur / 1000 });
  }
  return { tasks };
}

/**
 * Each long task the page's observer saw ([startTime, duration], ms), with
 * the thread time of the trace's task that began with it (within `slackMs`),
 * or null when the trace has none there.
 */
export function cpuOfLongTasks(longtasks: readonly (readonly number[])[], clock: TaskClock, slackMs = 2): (number | null)[] {
  return longtasks.map(([start, ms]) => {
    let best: TaskClock["tasks"][number] | null = null;
    for (const t of clock.tasks) {
      const off = Math.abs(t.start - start);
      if (off <= slackMs && Math.abs(t.ms - ms) <= Math.max(slackMs, ms * 0.1) && (!best || off < Math.abs(best.start - start))) best = t;
    }
    return best?.cpuMs ?? null;
  });
}

/**
 * Starts a trace of only the top-level tasks (cheap: a few thousand events a
 * minute; the page's busy share with and without it differed by less than
 * between two untraced runs) and marks the page's clock in it; `stop` ends
 * it and returns the tasks on the page's clock.
 */
export async function startTaskClock(browser: Browser, page: Page): Promise<{ stop: () => Promise<TaskClock> }> {
  await browser.startTracing(page, { categories: ["toplevel", "blink.user_timing"] });
  let markAtMs: number;
  try {
    markAtMs = await page.evaluate((name) => performance.mark(name).startTime, CLOCK_MARK);
  } catch (err) {
    await browser.stopTracing().catch(() => undefined);
    throw err;
  }
  return {
    stop: async () => {
      const parsed = JSON.parse((await browser.stopTracing()).toString("utf8")) as { traceEvents: TraceEvent[] } | TraceEvent[];
      return taskClock(Array.isArray(parsed) ? parsed : parsed.traceEvents, markAtMs);
    },
  };
}
