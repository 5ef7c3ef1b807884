// The probe the page runs before its own scripts, and what it noted: long tasks, each tick's arrival to paint, the other stream events.
import type { Page } from "@playwright/test";

/** Installed with page.addInitScript: window.__bench holds what it notes. */
export const PROBE = `(() => {
  const B = (window.__bench = { arrivals: [], longtasks: [], others: [] });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) B.longtasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
  } catch (e) { B.longtaskError = String(e); }
  const Native = window.EventSource;
  class ProbedEventSource extends Native {
    constructor(url, init) {
      super(url, init);
      this.addEventListener("tick", (ev) => {
        const at = performance.now();
        const wall = Date.now();
        let t = NaN;
        try { t = JSON.parse(ev.data).t; } catch {}
        const rec = [at, wall - t, NaN];
        B.arrivals.push(rec);
        requestAnimationFrame(() => {
          const ch = new MessageChannel();
          ch.port1.onmessage = () => { rec[2] = performance.now() - at; };
          ch.port2.postMessage(0);
        });
      });
    }
  }
  // the other events' arrivals and sizes: is a long task the handling of one?
  const Probed2 = class extends ProbedEventSource {
    constructor(url, init) {
      super(url, init);
      for (const name of ["queries", "queries-changes", "findings", "io", "target", "settings", "outages"]) {
        this.addEventListener(name, (ev) => B.others.push([performance.now(), name, ev.data.length]));
      }
    }
  };
  window.EventSource = Probed2;
})();`;

/** Forgets the arrivals noted so far; the page's clock now, from which long tasks count. */
export function resetProbe(page: Page): Promise<number> {
  return page.evaluate(() => {
    const B = (window as unknown as { __bench: { arrivals: unknown[]; longtasks: unknown[]; others: unknown[] } }).__bench;
    B.arrivals.length = 0;
    B.others.length = 0;
    return performance.now();
  });
}

/** What the probe noted since resetProbe (long tasks from `from`), and the page's clock as it was read. */
export function readProbe(page: Page, from: number) {
  return page.evaluate((from) => {
    const B = (
      window as unknown as {
        __bench: { arrivals: number[][]; longtasks: number[][]; others: [number, string, number][]; longtaskError?: string };
      }
    ).__bench;
    return {
      arrivals: B.arrivals.map((a) => [...a]),
      longtasks: B.longtasks.filter((l) => l[0] >= from),
      others: B.others.map((o) => [...o] as [number, string, number]),
      error: B.longtaskError ?? null,
      until: performance.now(),
    };
  }, from);
}
