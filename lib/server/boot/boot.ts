import "server-only";
import { Collector } from "../collector/collector";
import { recordLabResult } from "../history/lab-results";
import { HistoryStore } from "../history/store";
import { SampleStore } from "../history/samples";
import { samplesFile } from "../history/samples-db.mjs";
import { formatDuration } from "../../format";
import { serveStream } from "../http/direct-stream";
import { StreamLimits } from "../runtime/streams";
import { FailureThrottle } from "../runtime/throttle";
import { isLoopback } from "../config/addresses";
import { loadConfigOrExit, type Config } from "../config/config";
import { LoopLag } from "../runtime/loop-lag";
import { createRuntime, type DemoControl, type Runtime } from "../runtime/runtime";

function makeLog(config: Config) {
  return (line: string) => {
    if (config.log) console.log(`[inflight] ${line}`);
  };
}

/** The history file (INFLIGHT_HISTORY_FILE); a file it cannot use is one line, and the history is off. */
function openHistory(config: Config, log: (line: string) => void): HistoryStore {
  const options = config.history ?? { file: "", retentionMs: 0, maxBytes: 0 };
  if (!config.history) return HistoryStore.off({ ...options, log }, "INFLIGHT_HISTORY is off");
  const store = HistoryStore.open({ ...config.history, log });
  if (store.status.on) log(`history in ${config.history.file}, kept ${formatDuration(config.history.retentionMs)}`);
  return store;
}

/** the history's samples, in a file next to history.db, with its retention and cap; off with it. */
function openSamples(config: Config, log: (line: string) => void): SampleStore {
  if (!config.history) return SampleStore.off({ file: "", retentionMs: 0, maxBytes: 0, log }, "INFLIGHT_HISTORY is off");
  const store = SampleStore.open({ ...config.history, file: samplesFile(config.history.file), log });
  store.start();
  return store;
}

/** Starts everything once per process; safe to call again. */
export function boot(): Runtime {
  const { runtime, created } = createRuntime(() => {
    const config = loadConfigOrExit();
    const log = makeLog(config);
    const loopLag = new LoopLag();
    loopLag.start();
    const collectors = new Map<string, Collector>();
    const history = openHistory(config, log);
    const samples = openSamples(config, log);
    for (const target of config.targets) {
      collectors.set(
        target.id,
        new Collector({
          id: target.id,
          name: target.name,
          demo: target.demo,
          watchedSampleMs: config.watchedSampleMsGiven ? config.watchedSampleMs : undefined,
          idleSampleMs: config.idleSampleMs,
          windowMs: config.windowMs,
          redact: config.redact,
          budgetMsPerSecond: config.budgetMsPerSecond,
          history: history.forTarget(target.id),
          samples: samples.forTarget(target.id, () => history.keyFor(target.id)),
          log,
          loopLag,
        }),
      );
    }
    const made: Runtime = {
      config,
      collectors,
      history,
      samples,
      lab: null,
      demo: null,
      demoStarting: null,
      stopDemo: null,
      startedAt: Date.now(),
      streams: new StreamLimits(config.maxStreams, config.maxStreamsPerClient),
      tokenChecks: new FailureThrottle(),
      loopLag,
      serveStream: (req, res, client) => serveStream(made, req, res, client),
    };
    return made;
  });
  if (!created) return runtime;

  const { config } = runtime;
  const log = makeLog(config);
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
  if (config.demo) {
    log(
      `no target configured: starting the embedded PostgreSQL ${config.demoPgBin ? `of ${config.demoPgBin}` : "18"} demo; dashboard on ${url}`,
    );
    void startDemo(runtime, log);
  } else {
    for (const target of config.targets) runtime.collectors.get(target.id)!.start(target.url);
    log(`watching ${config.targets.map((t) => t.name).join(", ")}; dashboard on ${url}`);
  }
  if (config.servedHosts.length === 3 && !isLoopback(config.host)) {
    log(
      `HOST ${config.host}: requests are answered only for Host 127.0.0.1, localhost or [::1]; list the names this server is reached by in INFLIGHT_ALLOWED_HOSTS`,
    );
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
    const { DemoLab } = await import("../lab/demo-lab");
    collector.setStarting(config.demoPgBin ? `starting the demo PostgreSQL of ${config.demoPgBin}` : "starting the embedded PostgreSQL 18");
    // A shutdown during the first start (initdb, seeding) must still stop the server it started.
    // Another build's cluster gets a data directory of its own.
    const dataDir = config.demoPgBin
      ? `${config.demoDir}/demo-pg-${config.demoPgBin.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, "")}`
      : `${config.demoDir}/demo-pg`;
    const starting = startEmbedded({ dataDir, binDir: config.demoPgBin ?? undefined, log });
    runtime.demoStarting = starting;
    const server = await starting;
    runtime.stopDemo = () => server.stop("fast");
    collector.setStarting("making the demo database (first run only)");
    const { database, table } = await ensureDemoDatabase(server, { tableMb: config.demoTableMb, log });
    // Its port is new at each start: the data directory is what stays, and its history with it.
    collector.start(server.monitorUrl(database), `embedded:${server.dataDir}/${database}`);
    let workload = config.demoWorkload ? startWorkload(server, { database, table, log }) : null;
    log(`watching the demo target: PostgreSQL ${server.version} on 127.0.0.1:${server.port}, database ${database}`);

    let busy = false;
    const control: DemoControl = {
      get busy() {
        return busy;
      },
      async restartWith(settings) {
        if (busy) throw new Error("a restart is already under way");
        if (runtime.lab?.busy) throw new Error("the lab is running: it restarts the server itself");
        busy = true;
        try {
          const { alterSystem } = await import("../demo/admin");
          log(`demo: restarting the embedded server with ${JSON.stringify(settings)}`);
          // Stopped from outside (pg_ctl stop, a crash): started first, since ALTER SYSTEM needs it up.
          await server.start();
          await server.restartWithChange(() => alterSystem(server, settings));
        } finally {
          busy = false;
        }
      },
    };
    runtime.demo = control;
    let stopping = false;
    runtime.lab = new DemoLab({
      server,
      database,
      table,
      async pauseWorkload() {
        const paused = workload;
        await paused?.stop();
        workload = null;
        return () => {
          if (paused && !stopping) workload = startWorkload(server, { database, table, log });
        };
      },
      restarting: () => busy,
      noteRestart: (at) => {
        const history = runtime.history.historyOf(collector.id);
        if (history) runtime.history.noteLabRestart(history, at);
      },
      record: (result) => {
        const history = runtime.history.historyOf(collector.id);
        if (!history) return log("lab: its result is not kept: the demo server's history is not known yet");
        recordLabResult(runtime.history, history, result);
      },
      log,
    });
    runtime.stopDemo = async () => {
      stopping = true;
      // A running lab puts io_method back before the server stops.
      await runtime.lab?.stop();
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
      // The history's writer is given what is queued and waited for (5 s at most).
      .then(() => runtime.samples.close())
      .catch((err) => log(`while stopping: ${(err as Error).message}`))
      .then(() => runtime.history.close())
      .finally(() => process.exit(0));
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}
