// The subcommands: each checks what it needs of the machine, then does its
// work under the lock. start and restart print one JSON line on stdout.
import { randomBytes } from "node:crypto";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { clearStalePidFile, cluster, clusterNames, initdb, inspect, majorOf, portOf, postmasterPid, runningClusters } from "./clusters.mjs";
import { UsageError } from "./errors.mjs";
import { BOOTSTRAP_MARK, INSTALL_MARK, MAJORS, PARTIAL, ROOT, SYSTEM, installMark, readJson } from "./layout.mjs";
import { withLock } from "./lock.mjs";
import { log, phase } from "./log.mjs";
import { checkMachine, checkPlatform } from "./machine.mjs";
import { SHM_MOUNT, ensureMounts, mountsUnder, unmountAll } from "./mounts.mjs";
import { describeServer, psql, restartServer, startOnConfiguredPort, startServer, stopServer, waitAccepting } from "./server.mjs";
import { setup } from "./setup.mjs";
import { upgradeCluster } from "./upgrade.mjs";

const IO_METHODS = ["sync", "worker", "io_uring"];

export async function cmdSetup(opts) {
  checkMachine();
  await withLock(async () => {
    await setup(opts.major);
    await unmountIfIdle();
  });
}

export async function cmdStart(opts) {
  const name = opts.data ?? `c${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
  const c = cluster(name);
  checkMachine();
  const info = await withLock(async () => {
    await setup(opts.major);
    const installed = readJson(path.join(SYSTEM, installMark(opts.major)));
    await ensureMounts([SHM_MOUNT]);
    try {
      return await startCluster(c, opts, installed.pgStatStatements);
    } catch (err) {
      await unmountIfIdle();
      throw err;
    }
  });
  process.stdout.write(`${JSON.stringify(info)}\n`);
}

async function startCluster(c, opts, pgss) {
  const state = inspect(c);
  if (state === "unfinished") {
    log(`removing ${c.host}: its initdb never finished`);
    await fs.rm(c.host, { recursive: true, force: true });
    await fs.rm(c.secrets, { force: true });
  }
  const fresh = state !== "ready";
  if (fresh) await phase(`initdb ${c.name} (${opts.major})`, () => initdb(c, opts.major, { checksums: !opts.noDataChecksums }));
  else if (majorOf(c) !== opts.major)
    throw new UsageError(`${c.name} is a PostgreSQL ${majorOf(c)} cluster, not ${opts.major}: pass --major ${majorOf(c)}`);
  if (postmasterPid(c) !== null) {
    log(`${c.name} is already running on port ${portOf(c)}; its settings are left as they are`);
  } else {
    await clearStalePidFile(c);
    await startServer(c, { port: opts.port, settings: opts.settings, pgss });
  }
  await waitAccepting(c);
  if (pgss) await psql(c, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  return describeServer(c);
}

export async function cmdRestart(opts) {
  if (!opts.data) throw new UsageError("restart needs --data NAME");
  if (opts.ioMethod && !IO_METHODS.includes(opts.ioMethod)) throw new UsageError(`--io-method must be one of ${IO_METHODS.join(", ")}`);
  checkMachine();
  const c = cluster(opts.data);
  const info = await withLock(async () => {
    if (inspect(c) !== "ready") throw new Error(`no cluster named ${c.name} (start --data ${c.name} makes it)`);
    await ensureMounts([SHM_MOUNT]);
    if (postmasterPid(c) === null) {
      await clearStalePidFile(c);
      await startOnConfiguredPort(c);
    }
    if (opts.ioMethod) await psql(c, `ALTER SYSTEM SET io_method = '${opts.ioMethod}'`);
    await phase(`restart ${c.name}${opts.ioMethod ? ` (io_method = ${opts.ioMethod})` : ""}`, () => restartServer(c));
    const described = await describeServer(c);
    if (opts.ioMethod && described.ioMethod !== opts.ioMethod) {
      throw new Error(
        `after the restart io_method is ${described.ioMethod}, not ${opts.ioMethod} (a setting in postgresql.auto.conf or -c overrides it?)`,
      );
    }
    return described;
  });
  process.stdout.write(`${JSON.stringify(info)}\n`);
}

/** pg_upgrade --data NAME to --major (19): the same port and password, the new major; prints its JSON line. */
export async function cmdUpgrade(opts) {
  if (!opts.data) throw new UsageError("upgrade needs --data NAME");
  checkMachine();
  const info = await withLock(async () => {
    await setup(opts.major);
    await ensureMounts([SHM_MOUNT]);
    await upgradeCluster(opts.data, opts.major);
    return describeServer(cluster(opts.data));
  });
  process.stdout.write(`${JSON.stringify(info)}\n`);
}

export async function cmdStop(opts) {
  if (!opts.data) throw new UsageError("stop needs --data NAME");
  checkPlatform();
  const c = cluster(opts.data);
  if (!existsSync(SYSTEM)) return log(`nothing to stop: ${SYSTEM} does not exist`);
  await withLock(async () => {
    if (await stopServer(c)) log(`stopped ${c.name}`);
    if (opts.remove) {
      await fs.rm(c.host, { recursive: true, force: true });
      await fs.rm(c.secrets, { force: true });
      log(`removed ${c.host}`);
    }
    await unmountIfIdle();
  });
}

export async function cmdStatus() {
  const boot = readJson(path.join(SYSTEM, BOOTSTRAP_MARK));
  const installed = existsSync(SYSTEM) ? readJson(path.join(SYSTEM, INSTALL_MARK)) : null;
  const clusters = existsSync(SYSTEM)
    ? clusterNames().map((name) => {
        const c = cluster(name);
        const pid = postmasterPid(c);
        return { name, major: majorOf(c), running: pid !== null, pid, port: pid !== null ? portOf(c) : null, dataDir: c.host };
      })
    : [];
  const status = {
    root: ROOT,
    bootstrapped: boot,
    installed,
    installedMajors: Object.fromEntries(MAJORS.map((m) => [m, existsSync(SYSTEM) ? readJson(path.join(SYSTEM, installMark(m))) : null])),
    halfFinishedBootstrap: existsSync(PARTIAL),
    mounts: mountsUnder(ROOT),
    clusters,
  };
  process.stdout.write(`${JSON.stringify(status)}\n`);
}

export async function cmdTeardown() {
  checkPlatform();
  if (!existsSync(ROOT)) return log(`teardown: nothing to do, ${ROOT} does not exist`);
  await withLock(async () => {
    if (existsSync(SYSTEM)) {
      for (const name of runningClusters()) {
        await stopServer(cluster(name));
        log(`stopped ${name}`);
      }
    }
    const n = await unmountAll(ROOT);
    log(`teardown: ${n} mount${n === 1 ? "" : "s"} removed, no cluster running`);
  });
}

/** The mounts stay only while a cluster of ours runs. */
async function unmountIfIdle() {
  if (existsSync(SYSTEM) && runningClusters().length > 0) return;
  const n = await unmountAll(ROOT);
  if (n > 0) log(`unmounted ${n} mount${n === 1 ? "" : "s"} under ${ROOT}`);
}
