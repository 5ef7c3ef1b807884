// Figure 10's browser part: the fleet page (/) of one inflight with many
// targets, in Chromium with the flags of figure 6: the time until every
// target's row is drawn, then the main thread's busy share (DevTools
// TaskDuration over wall time) while it polls.
import { chromium, type Browser } from "@playwright/test";
import { CHROMIUM_FLAGS } from "./browser";

export interface FleetPageResult {
  targets: number;
  /** navigation start to every row drawn, ms */
  firstRenderMs: number;
  seconds: number;
  busyShare: number;
  scriptShare: number;
  layoutShare: number;
}

export async function measureFleetPage(opts: {
  baseUrl: string;
  targets: number;
  seconds: number;
  executablePath: string | undefined;
}): Promise<FleetPageResult> {
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({ executablePath: opts.executablePath, args: CHROMIUM_FLAGS, headless: true });
    const context = await browser.newContext({ viewport: { width: 1920, height: 1080 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(opts.baseUrl + "/", { waitUntil: "domcontentloaded" });
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="fleet-row"]').length >= n, opts.targets, {
      timeout: 120_000,
    });
    const firstRenderMs = Date.now() - t0;
    // a couple of polls in before measuring
    await page.waitForTimeout(5000);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable");
    const metrics = async () => {
      const { metrics } = (await cdp.send("Performance.getMetrics")) as { metrics: { name: string; value: number }[] };
      return Object.fromEntries(metrics.map((m) => [m.name, m.value])) as Record<string, number>;
    };
    const m0 = await metrics();
    const w0 = performance.now();
    await page.waitForTimeout(opts.seconds * 1000);
    const m1 = await metrics();
    const wall = (performance.now() - w0) / 1000;
    const share = (k: string) => (m1[k] - m0[k]) / wall;
    return {
      targets: opts.targets,
      firstRenderMs,
      seconds: Math.round(wall),
      busyShare: share("TaskDuration"),
      scriptShare: share("ScriptDuration"),
      layoutShare: share("LayoutDuration") + share("RecalcStyleDuration"),
    };
  } finally {
    await browser?.close();
  }
}
