// Two builds of the page side by side (BENCH_ONLY=ab, BENCH_AB_NEXT=<the
// other build's .next>): on a shared machine a figure moves with the load,
// so a change to the page (the React Compiler) is judged by a ratio measured
// in one run. Two 10/s servers watch the same target during the same cold
// scans, one per build; once their windows are full, Chromium measures the
// target page (every chart on screen) of each in turn, BENCH_AB_ROUNDS
// rounds of cfg.browserSeconds, the order swapped each round.
import { existsSync } from "node:fs";
import path from "node:path";
import { snapshotApp } from "../lib/app";
import { measureBrowser } from "../lib/browser";
import { startInflight, type Inflight } from "../lib/inflight";
import { r3, sleep } from "../lib/stats";
import type { Json, PhaseContext } from "./context";

export async function pageAB(ctx: PhaseContext): Promise<void> {
  const { cfg, paths, roles, target, running, results, log } = ctx;
  const other = process.env.BENCH_AB_NEXT;
  if (!other) throw new Error("BENCH_AB_NEXT: the .next directory of the build to compare with");
  const executablePath = process.env.PLAYWRIGHT_CHROMIUM === "bundled" ? undefined : (process.env.CHROMIUM_PATH ?? "/usr/bin/chromium");
  // Before the windows fill, not after: scripts/bench.mjs installs it, a phase run alone does not.
  if (executablePath && !existsSync(executablePath))
    throw new Error(`no Chromium at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH`);
  const dirB = path.join(paths.tmp, "app-b");
  const buildB = snapshotApp(paths.root, dirB, other);
  // A (this build) is the rig's; B is the other build, same settings, own role
  const B: Inflight = await startInflight({
    appDir: dirB,
    name: "B (other build)",
    role: roles.e,
    url: target.urlFor(roles.e),
    sampleMs: 100,
    window: `${cfg.windowMin}m`,
    log,
  });
  running.servers.push(B);
  ctx.scans.phase = "background";
  void ctx.scans.start();
  const fullAt = B.watchedSince + cfg.windowMin * 60_000 + 5_000;
  log(`ab: waiting ${Math.round((fullAt - Date.now()) / 1000)} s for both windows to fill`);
  while (Date.now() < fullAt) await sleep(Math.min(30_000, fullAt - Date.now()));
  const rounds = Number(process.env.BENCH_AB_ROUNDS ?? 2);
  const out: Json[] = [];
  for (let i = 0; i < rounds; i++) {
    for (const [name, srv] of i % 2
      ? ([
          ["B", B],
          ["A", ctx.A],
        ] as const)
      : ([
          ["A", ctx.A],
          ["B", B],
        ] as const)) {
      const m = await measureBrowser({
        baseUrl: srv.server.url,
        targetId: "bench",
        seconds: cfg.browserSeconds,
        settleSeconds: cfg.browserSettleSeconds,
        executablePath,
        variant: "page",
        screenshot: path.join(paths.tmp, `ab-${name}-${i}.png`),
        log,
      });
      out.push({
        round: i,
        build: name,
        busyShare: r3(m.busyShare),
        scriptShare: r3(m.scriptShare),
        layoutShare: r3(m.layoutShare),
        longTasks: m.longTasks,
        longestTaskMs: m.longestTaskMs,
        paintP95: r3(m.paintP95),
        ticks: m.ticks,
      });
      log(`ab: ${JSON.stringify(out.at(-1))}`);
    }
  }
  const mean = (b: string) => out.filter((o) => o.build === b).reduce((s, o) => s + (o.busyShare as number), 0) / rounds;
  results.ab = {
    buildA: results.buildId,
    buildB,
    other,
    rounds: out,
    busyA: r3(mean("A")),
    busyB: r3(mean("B")),
    ratioBA: r3(mean("B") / mean("A")),
  };
}
