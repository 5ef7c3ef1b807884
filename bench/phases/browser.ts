// Phase 4, last: once A has watched for its whole window, the memory server
// E stops and Chromium opens A's target page: every chart on screen (the
// figure), then a plain 1920x1080 view for context -> figure 6, figure 4's
// browser freshness, and A's RSS with a full window (figure 5).
import path from "node:path";
import { measureBrowser, type BrowserResult } from "../lib/browser";
import { rssBytes } from "../lib/proc";
import { r3, sleep } from "../lib/stats";
import type { Json, PhaseContext } from "./context";

export async function browserOnFullWindow(ctx: PhaseContext): Promise<void> {
  const { cfg, A, memory, results, log } = ctx;
  await waitForFullWindow(ctx);
  // the memory server E stops here: nothing else runs beside the browser
  memory.stop = true;
  await memory.task;
  const info = await A.info();
  const rssFull = rssBytes(A.pid);
  if (results.fig5) ((results.fig5 as Json).serverA as Json).rssFullWindow = rssFull;
  else results.fig5 = { serverA: { window: `${cfg.windowMin}m`, rssAtStart: ctx.rssAStart, rssFullWindow: rssFull } };
  const browser = await openPage(ctx, "page", cfg.browserSeconds, cfg.profileSeconds, cfg.traceSeconds);
  const desktop = await openPage(ctx, "desktop", cfg.desktopSeconds, 0, 0);
  results.fig6 = {
    ...browser,
    desktop,
    watchedMinutes: r3((Date.now() - A.watchedSince) / 60_000),
    samplesA: info.samples,
    missedA: info.missed,
  };
  if ("freshnessP50" in browser && results.fig4)
    (results.fig4 as Json).browser = { ticks: browser.ticks, p50: r3(browser.freshnessP50), p95: r3(browser.freshnessP95) };
  log(`fig6 ${JSON.stringify(results.fig6).slice(0, 600)}`);
}

/** A's window is full 5 s after cfg.windowMin minutes of watching at 10/s; the scans keep running meanwhile. */
async function waitForFullWindow({ cfg, A, log }: PhaseContext): Promise<void> {
  const fullAt = A.watchedSince + cfg.windowMin * 60_000 + 5_000;
  if (Date.now() >= fullAt) return;
  log(`waiting ${Math.round((fullAt - Date.now()) / 1000)} s for A's ${cfg.windowMin}-minute window to fill at 10/s (scans keep running)`);
  while (Date.now() < fullAt) await sleep(Math.min(30_000, fullAt - Date.now()));
}

/** One browser measurement of A's target page; a failure is kept as the figure's error, not thrown. */
async function openPage(
  ctx: PhaseContext,
  variant: "page" | "desktop",
  seconds: number,
  profileSeconds: number,
  traceSeconds: number,
): Promise<BrowserResult | { error: string }> {
  const env = process.env;
  try {
    return await measureBrowser({
      baseUrl: ctx.A.server.url,
      targetId: "bench",
      seconds,
      settleSeconds: ctx.cfg.browserSettleSeconds,
      executablePath: env.PLAYWRIGHT_CHROMIUM === "bundled" ? undefined : (env.CHROMIUM_PATH ?? "/usr/bin/chromium"),
      variant,
      screenshot: path.join(ctx.paths.tmp, `page-${variant}.png`),
      profileSeconds,
      traceSeconds,
      log: ctx.log,
    });
  } catch (err) {
    return { error: (err as Error).message.split("\n").slice(0, 6).join(" ") };
  }
}
