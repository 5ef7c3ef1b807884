// Figure 6: the target page in Chromium, measured from inside the page.
// - a PerformanceObserver for long tasks (> 50 ms);
// - a paint probe (page-probe.ts): EventSource is wrapped so that every
//   `tick` event notes its arrival (performance.now() and Date.now() -
//   tick.t), asks for the next animation frame, and in it posts a message
//   that runs once that frame is done. Tick processing (useSyncExternalStore
//   renders in a microtask of the event) is inside that span; so is any 2 Hz
//   chart redraw that happens to run before the frame;
// - main-thread busy share from the DevTools protocol: TaskDuration over wall
//   time (Performance.getMetrics);
// - the same seconds traced, top-level tasks only: each long task's own CPU
//   time on the main thread (the thread clock), against its wall time: on
//   two cores shared with the server, PostgreSQL and the scans, a task can
//   wait for a core inside it.
import { loadavg } from "node:os";
import { chromium, type Browser } from "@playwright/test";
import { cpuProfile, type ProfileEntry } from "./cpu-profile";
import { PROBE, readProbe, resetProbe } from "./page-probe";
import { quantile } from "./stats";
import { cpuOfLongTasks, startTaskClock, traceLongTasks, type TaskAnatomy } from "./trace";

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface BrowserResult {
  url: string;
  viewport: { width: number; height: number };
  seconds: number;
  span: string;
  chartsOnScreen: string[];
  chartsOffScreen: string[];
  svgCharts: { total: number; inViewport: number };
  windowTicksAtLoad: number | null;
  loadMs: number;
  busyShare: number;
  scriptShare: number;
  layoutShare: number;
  ticks: number;
  paintP50: number | null;
  paintP95: number | null;
  paintMax: number | null;
  freshnessP50: number | null;
  freshnessP95: number | null;
  longTasks: number;
  longTasksPer10s: number;
  longestTaskMs: number | null;
  /** each long task's main-thread CPU time (ms, the trace's thread clock), in the observer's order; null: no trace */
  longTaskCpuMs: (number | null)[] | null;
  /** the most CPU time any one task of the main thread took in the same seconds */
  maxTaskCpuMs: number | null;
  /** tasks whose own CPU time was over 50 ms: long by the page's work, whatever the machine's load */
  tasksOverCpu50: number | null;
  /** the machine's 1-minute load average as measuring began and ended (2 cores here) */
  load: { before: number; after: number };
  chromium: string;
  variant: string;
  /** long tasks by the stream events that arrived inside them */
  longTaskCauses: Record<string, number>;
  /** characters per second of each non-tick stream event received */
  eventBytesPerSecond: Record<string, number>;
  /** self time by function over a few seconds after measuring (minified names) */
  profile?: ProfileEntry[];
  /** after the profile: what the long tasks of a trace were made of */
  anatomy?: TaskAnatomy;
  notes: string[];
}

export async function measureBrowser(opts: {
  baseUrl: string;
  targetId: string;
  seconds: number;
  settleSeconds: number;
  executablePath: string | undefined;
  /** "page": every chart on screen (a run opened, the viewport as tall as
   * the page); "desktop": 1920x1080, the top of the page, no run opened */
  variant: "page" | "desktop";
  /** a PNG of the page as measured */
  screenshot: string;
  /** after measuring: a CPU profile of this many seconds (0: none) */
  profileSeconds?: number;
  /** after the profile: a trace of this many seconds, its long tasks taken apart (0: none) */
  traceSeconds?: number;
  log: (l: string) => void;
}): Promise<BrowserResult> {
  const viewport = { width: 1920, height: 1080 };
  const notes: string[] = [];
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({ executablePath: opts.executablePath, args: CHROMIUM_FLAGS, headless: true });
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.on("pageerror", (err) => notes.push(`page error: ${err.message.slice(0, 200)}`));
    await page.addInitScript(PROBE);
    const url = `${opts.baseUrl}/targets/${opts.targetId}`;
    const t0 = Date.now();
    await page.goto(url, { waitUntil: "domcontentloaded" });
    await page.getByTestId("inflight-chart").waitFor({ state: "visible", timeout: 120_000 });
    const loadMs = Date.now() - t0;

    // the whole window, not the default 5 minutes: the last button of the
    // "time range" group is the window (labelled with its length)
    let span = "default";
    const spanButtons = page.getByRole("group", { name: "time range" }).getByRole("button");
    if ((await spanButtons.count()) > 0) {
      const last = spanButtons.last();
      span = ((await last.textContent()) ?? "?").trim();
      await last.click();
    } else notes.push("no time-range buttons found: measured at the page's default span");
    if (opts.variant === "page") {
      // a run's timeline is a chart too: open the newest run. Ended sub-second
      // runs are grouped (no row of their own): wait for one running.
      const row = page.getByTestId("query-row");
      await row
        .first()
        .waitFor({ state: "visible", timeout: 15_000 })
        .catch(() => undefined);
      if ((await row.count()) > 0) {
        await row.first().click();
        await page.waitForTimeout(500);
      } else notes.push("no query row to open the run timeline chart");
      // every chart on screen: a viewport as tall as the page, scrolled to the top
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      viewport.height = Math.min(Math.max(height + 20, 1080), 8000);
      await page.setViewportSize(viewport);
    }
    await page.evaluate(() => window.scrollTo(0, 0));

    const windowTicksAtLoad = await page.evaluate(async () => {
      const r = await fetch(location.pathname.replace("/targets/", "/api/targets/") + "/window");
      const j = await r.json();
      return Array.isArray(j.ticks) ? j.ticks.length : null;
    });

    await page.waitForTimeout(opts.settleSeconds * 1000);
    const charts = await page.evaluate(() => {
      const ids = ["inflight-chart", "io-workers-chart", "throughput-chart", "waits-chart", "run-state-strip", "run-timeline"];
      const on: string[] = [];
      const off: string[] = [];
      const vh = window.innerHeight;
      const vw = window.innerWidth;
      const within = (r: DOMRect) => r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= vh && r.right <= vw;
      for (const id of ids) {
        for (const el of Array.from(document.querySelectorAll(`[data-testid="${id}"]`)))
          (within(el.getBoundingClientRect()) ? on : off).push(id);
      }
      const svgs = Array.from(document.querySelectorAll("svg.recharts-surface"));
      return { on, off, total: svgs.length, inViewport: svgs.filter((s) => within(s.getBoundingClientRect())).length };
    });

    await page.screenshot({ path: opts.screenshot }).catch((err) => notes.push(`screenshot: ${String(err).slice(0, 100)}`));
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable");
    const metrics = async () => {
      const { metrics } = (await cdp.send("Performance.getMetrics")) as { metrics: { name: string; value: number }[] };
      return Object.fromEntries(metrics.map((m) => [m.name, m.value])) as Record<string, number>;
    };
    // traced from before the window opens: starting a trace is not in it
    const clock = await startTaskClock(browser, page).catch((err) => (notes.push(`task clock: ${String(err).slice(0, 200)}`), null));
    const from = await resetProbe(page);
    const m0 = await metrics();
    const wall0 = performance.now();
    opts.log(`browser: measuring ${opts.seconds} s on ${url} (${charts.inViewport}/${charts.total} charts in the viewport)`);
    const loadBefore = loadavg()[0];
    await page.waitForTimeout(opts.seconds * 1000);
    const loadAfter = loadavg()[0];
    const m1 = await metrics();
    const wall = (performance.now() - wall0) / 1000;
    const data = await readProbe(page, from);
    // stopped after the window's figures are read: ending a trace makes long tasks of its own
    const tasks = clock ? await clock.stop().catch((err) => (notes.push(`task clock: ${String(err).slice(0, 200)}`), null)) : null;
    if (data.error) notes.push(`longtask observer: ${data.error}`);
    let profile: ProfileEntry[] | undefined;
    if (opts.profileSeconds) profile = await cpuProfile(cdp, opts.profileSeconds);
    let anatomy: TaskAnatomy | undefined;
    if (opts.traceSeconds)
      anatomy = await traceLongTasks(browser, page, opts.traceSeconds).catch(
        (err) => (notes.push(`trace: ${String(err).slice(0, 200)}`), undefined),
      );
    const done = data.arrivals.filter((a) => Number.isFinite(a[2]));
    const paints = done.map((a) => a[2]);
    const fresh = data.arrivals.map((a) => a[1]).filter(Number.isFinite);
    const busy = (m1.TaskDuration - m0.TaskDuration) / wall;
    // a long task that contains the arrival of an event is (at least partly) its handling
    const inside = (lt: number[], at: number) => at >= lt[0] - 1 && at <= lt[0] + lt[1] + 1;
    const longTaskCauses: Record<string, number> = {};
    for (const lt of data.longtasks) {
      const names = new Set<string>();
      for (const o of data.others) if (inside(lt, o[0])) names.add(o[1]);
      if (data.arrivals.some((a) => inside(lt, a[0]))) names.add("tick");
      const key = names.size ? [...names].sort().join("+") : "no event (timer: the 2 Hz chart redraw, clocks)";
      longTaskCauses[key] = (longTaskCauses[key] ?? 0) + 1;
    }
    const eventBytesPerSecond: Record<string, number> = {};
    for (const o of data.others) eventBytesPerSecond[o[1]] = (eventBytesPerSecond[o[1]] ?? 0) + o[2] / wall;
    for (const k of Object.keys(eventBytesPerSecond)) eventBytesPerSecond[k] = Math.round(eventBytesPerSecond[k]);
    const longTaskCpuMs = tasks ? cpuOfLongTasks(data.longtasks, tasks).map((ms) => (ms === null ? null : Math.round(ms))) : null;
    // the tasks inside the measured window only (the trace began a moment before it and ended after)
    const cpus = tasks ? tasks.tasks.filter((t) => t.start >= from && t.start < data.until && t.cpuMs !== null).map((t) => t.cpuMs!) : [];
    const chromiumVersion = browser.version();
    return {
      url,
      viewport,
      seconds: Math.round(wall),
      span,
      chartsOnScreen: charts.on,
      chartsOffScreen: charts.off,
      svgCharts: { total: charts.total, inViewport: charts.inViewport },
      windowTicksAtLoad,
      loadMs,
      busyShare: busy,
      scriptShare: (m1.ScriptDuration - m0.ScriptDuration) / wall,
      layoutShare: (m1.LayoutDuration - m0.LayoutDuration + (m1.RecalcStyleDuration - m0.RecalcStyleDuration)) / wall,
      ticks: data.arrivals.length,
      paintP50: quantile(paints, 0.5),
      paintP95: quantile(paints, 0.95),
      paintMax: paints.length ? Math.max(...paints) : null,
      freshnessP50: quantile(fresh, 0.5),
      freshnessP95: quantile(fresh, 0.95),
      longTasks: data.longtasks.length,
      longTasksPer10s: (data.longtasks.length / wall) * 10,
      longestTaskMs: data.longtasks.length ? Math.max(...data.longtasks.map((l) => l[1])) : null,
      longTaskCpuMs,
      maxTaskCpuMs: cpus.length ? Math.round(Math.max(...cpus)) : null,
      tasksOverCpu50: tasks ? cpus.filter((ms) => ms > 50).length : null,
      load: { before: loadBefore, after: loadAfter },
      chromium: chromiumVersion,
      variant: opts.variant,
      longTaskCauses,
      eventBytesPerSecond,
      profile,
      anatomy,
      notes,
    };
  } finally {
    await browser?.close().catch(() => undefined);
  }
}
