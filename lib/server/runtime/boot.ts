import "server-only";
import { Collector } from "../collector/collector";
import { earlyRefusal } from "../http/early";
import { StreamLimits } from "../http/streams";
import { FailureThrottle } from "../http/throttle";
import { isLoopback } from "./addresses";
import { loadConfigOrExit, type Config } from "./config";
import { LoopLag } from "./loop-lag";
import { createRuntime, type DemoControl, type Runtime } from "./runtime";

function makeLog(config: Config) {
  return (line: string) => {
    if (config.log) console.log(`[inflight] ${line}`);
  };
}

/** Starts everything once per process; safe to call again. */
export function boot(): Runtime {
  const { runtime, created } = createRuntime(() => {
    const config = loadConfigOrExit();
    const log = makeLog(config);
    const loopLag = new LoopLag();
    loopLag.start();
    const collectors = new Map<string, Collector>();
    for (const target of config.targets) {
      collectors.set(
        target.id,
        new Collector({
          id: target.id,
          name: target.name,
          demo: target.demo,
          sampleMs: config.sampleMs,
          idleSampleMs: config.idleSampleMs,
          windowMs: config.windowMs,
          redact: config.redact,
          budgetMsPerSecond: config.budgetMsPerSecond,
          log,
          loopLag,
        }),
      );
    }
    const streams = new StreamLimits(config.maxStreams, config.maxStreamsPerClient);
    return {
      config,
      collectors,
      demo: null,
      demoStarting: null,
      stopDemo: null,
      startedAt: Date.now(),
      streams,
      tokenChecks: new FailureThrottle(),
      loopLag,
      refuseEarly: (req, client) => earlyRefusal(config, streams, req, client),
    };
  });
  if (!created) return runtime;

  const { config } = runtime;
  const log = makeLog(config);
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
  if (config.demo) {
    log(`no target configured: starting the embedded PostgreSQL 18 demo; dashboard on ${url}`);
    void startDemo(runtime, log);
  } else {
    for (const target of config.targets) runtime.collectors.get(target.id)!.start(target.url);
    log(`watching ${config.targets.map((t) => t.name).join(", ")}; dashboard on ${url}`);
  }
  if (config.servedHosts.length === 3 && !isLoopback(config.host)) {
    log(`HOST ${config.host}: requests are answered only for Host 127.0.0.1, localhost or [::1]; list the names this server is reached by in INFLIGHT_ALLOWED_HOSTS`);
  }
  installShutdown(runtime, log);
  return runtime;
}

async function startDemo(runtime: Runtime, log: (line: string) => void): Promise<void> {
  const collector = runtime.collectors.get("demo")!;
  const { config } = runtime;
  try {
    const { startEmbedded } = await import("../demo/embedded");
    const { ensureDemoDatabase } = await import("../demo/seed");
    const { startWorkload } = await import("../demo/workload");
    collector.setStarting("starting the embedded PostgreSQL 18");
    // A shutdown during the first start (initdb, seeding) must still stop the server it started.
    const starting = startEmbedded({ dataDir: `${config.demoDir}/demo-pg`, log });
    runtime.demoStarting = starting;
    const server = await starting;
    runtime.stopDemo = () => server.stop("fast");
    collector.setStarting("making the demo database (first run only)");
    const { database, table } = await ensureDemoDatabase(server, { tableMb: config.demoTableMb, log });
    collector.start(server.monitorUrl(database));
    let workload = config.demoWorkload ? startWorkload(server, { database, table, log }) : null;
    log(`watching the demo target: embedded PostgreSQL 18 on 127.0.0.1:${server.port}, database ${database}`);

    let busy = false;
    const control: DemoControl = {
      get busy() {
        return busy;
      },
      async restartWith(settings) {
        if (busy) throw new Error("a restart is already under way");
        busy = true;
        try {
          const { alterSystem } = await import("../demo/admin");
          await alterSystem(server, settings);
          log(`demo: restarting the embedded server with ${JSON.stringify(settings)}`);
          await server.restart();
        } finally {
          busy = false;
        }
      },
    };
    runtime.demo = control;
    runtime.stopDemo = async () => {
      await workload?.stop();
      workload = null;
      await collector.stop();
      await server.stop("fast");
    };
  } catch (err) {
    const message = (err as Error).message?.split("\n")[0] ?? String(err);
    log(`the demo could not start: ${message}`);
    collector.setFailed(`the embedded PostgreSQL could not start: ${message}`);
  }
}

function installShutdown(runtime: Runtime, log: (line: string) => void): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    const all = [...runtime.collectors.values()].map((c) => c.stop());
    // An embedded server still starting is waited for, then stopped like a running one.
    const demo = (async () => {
      await runtime.demoStarting?.catch(() => undefined);
      await runtime.stopDemo?.();
    })();
    const timeout = new Promise((resolve) => setTimeout(resolve, 15_000).unref());
    void Promise.race([Promise.all([...all, demo]), timeout])
      .catch((err) => log(`while stopping: ${(err as Error).message}`))
      .finally(() => process.exit(0));
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}
