// One cluster's server: its settings file, pg_ctl start/stop/restart, psql
// over its own socket, and the JSON line that describes it to the caller.
import { promises as fs, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { binOf, portOf, postmasterPid, readSecrets } from "./clusters.mjs";
import { Unavailable, UsageError } from "./errors.mjs";
import { CONF_FILE, LOG_FILE } from "./layout.mjs";
import { log, seconds } from "./log.mjs";
import { asPostgres, describe, isAlive, postgresUser } from "./processes.mjs";

const PG_CTL_TIMEOUT_S = 60;

/** Base settings go to an included file, not -c flags: -c would override postgresql.auto.conf and defeat ALTER SYSTEM. */
function renderConf(c, port, pgss, extra) {
  const settings = {
    listen_addresses: "127.0.0.1",
    port: String(port),
    // The socket sits in the data dir (0700, postgres): only this script's psql uses it.
    unix_socket_directories: c.inner,
    io_method: "io_uring",
    shared_buffers: "32MB",
    track_io_timing: "on",
    compute_query_id: "on",
    ...(pgss ? { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track": "all" } : {}),
    logging_collector: "off",
    ...extra,
  };
  const lines = ["# Written by scripts/iouring-pg.mjs at every start; ALTER SYSTEM (postgresql.auto.conf) overrides these."];
  for (const [name, value] of Object.entries(settings)) {
    if (/[\r\n]/.test(value)) throw new UsageError(`setting ${name} must be one line`);
    lines.push(`${name} = '${value.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`);
  }
  return `${lines.join("\n")}\n`;
}

async function writeConf(c, text) {
  const file = path.join(c.host, CONF_FILE);
  await fs.writeFile(file, text, { mode: 0o600 });
  const { uid, gid } = postgresUser();
  await fs.chown(file, uid, gid);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function pgCtl(c, args) {
  return asPostgres([`${binOf(c)}/pg_ctl`, ...args, "-D", c.inner, "-w", "-t", String(PG_CTL_TIMEOUT_S), "-s"], {
    timeoutMs: (PG_CTL_TIMEOUT_S + 15) * 1000,
  });
}

function serverLogTail(c, lines = 8) {
  try {
    return readFileSync(path.join(c.host, LOG_FILE), "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no server log)";
  }
}

/** pg_ctl start; the log goes to a file (without -l the postmaster would hold our stdout pipe open). */
async function pgCtlStart(c, port) {
  const result = await pgCtl(c, ["start", "-l", `${c.inner}/${LOG_FILE}`]);
  if (result.code === 0) return "ok";
  const logText = serverLogTail(c);
  if (/could not (bind|create any TCP\/IP sockets)|Address already in use/i.test(logText)) return "port-taken";
  if (/io_uring/i.test(logText) && /(FATAL|could not)/.test(logText)) {
    throw new Unavailable(
      `PostgreSQL could not set up io_uring here (${logText
        .split("\n")
        .filter((l) => /io_uring/.test(l))
        .pop()}); fix: allow io_uring (seccomp profile, kernel.io_uring_disabled=0)`,
    );
  }
  throw new Error(`PostgreSQL did not start on port ${port} (pg_ctl ${describe(result)}); end of ${c.host}/${LOG_FILE}:\n${logText}`);
}

export async function startServer(c, { port, settings, pgss }) {
  for (let attempt = 1; ; attempt++) {
    const chosen = port ?? (await freePort());
    await writeConf(c, renderConf(c, chosen, pgss, settings));
    const started = performance.now();
    const outcome = await pgCtlStart(c, chosen);
    if (outcome === "ok") {
      log(`start ${c.name} on 127.0.0.1:${chosen}: ${seconds(started)}`);
      return chosen;
    }
    if (port !== undefined) throw new Error(`port ${port} is in use: pick another --port or leave it out`);
    if (attempt >= 3) throw new Error(`three free ports were taken before PostgreSQL could bind them`);
    log(`port ${chosen} was taken before PostgreSQL could bind it; trying another`);
  }
}

async function waitForExit(pid, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > until) throw new Error(`postmaster pid ${pid} still alive ${timeoutMs} ms after pg_ctl stop`);
    await sleep(25);
  }
}

export async function stopServer(c) {
  const pid = postmasterPid(c);
  if (pid === null) return false;
  const result = await pgCtl(c, ["stop", "-m", "fast"]);
  if (result.code !== 0 && isAlive(pid)) throw new Error(`PostgreSQL ${c.name} (pid ${pid}) did not stop (pg_ctl ${describe(result)})`);
  await waitForExit(pid);
  return true;
}

/** psql as the chroot's postgres user over the cluster's own socket (peer auth). */
export async function psql(c, sql, db = "postgres") {
  const port = portOf(c);
  const result = await asPostgres([
    `${binOf(c)}/psql`,
    "-X",
    "-q",
    "-At",
    "-v",
    "ON_ERROR_STOP=1",
    "-h",
    c.inner,
    "-p",
    String(port),
    "-d",
    db,
    "-c",
    sql,
  ]);
  if (result.code !== 0) throw new Error(`psql on ${c.name}: ${describe(result)}`);
  return result.stdout.trim();
}

/** pg_ctl -w says the postmaster accepts connections; a query proves it. Bounded. */
export async function waitAccepting(c, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await psql(c, "SELECT 1");
    } catch (err) {
      if (Date.now() > until) throw err;
      await sleep(50);
    }
  }
}

export async function describeServer(c) {
  const info = JSON.parse(
    await psql(
      c,
      `SELECT json_build_object(
         'version', current_setting('server_version'),
         'ioMethods', (SELECT to_json(enumvals) FROM pg_settings WHERE name = 'io_method'),
         'ioMethod', current_setting('io_method'))`,
    ),
  );
  const port = portOf(c);
  const { superuserPassword } = readSecrets(c);
  return {
    port,
    superuserUrl: `postgres://postgres:${encodeURIComponent(superuserPassword)}@127.0.0.1:${port}/postgres`,
    dataDir: c.host,
    version: /^\d+(\.\d+)*/.exec(info.version)?.[0] ?? info.version,
    ioMethods: info.ioMethods,
    ioMethod: info.ioMethod,
    name: c.name,
  };
}

/** A stopped cluster (e.g. by a crash) comes back on the port its settings file names. */
export async function startOnConfiguredPort(c) {
  const port = Number(/^port = '(\d+)'/m.exec(readFileSync(path.join(c.host, CONF_FILE), "utf8"))?.[1]);
  if ((await pgCtlStart(c, port)) !== "ok") throw new Error(`port ${port} of ${c.name} is taken by someone else`);
  await waitAccepting(c);
}

/** pg_ctl restart -m fast; resolves when the server accepts connections again. */
export async function restartServer(c) {
  const result = await pgCtl(c, ["restart", "-m", "fast", "-l", `${c.inner}/${LOG_FILE}`]);
  if (result.code !== 0) throw new Error(`pg_ctl restart of ${c.name} failed (${describe(result)}); end of its log:\n${serverLogTail(c)}`);
  await waitAccepting(c);
}
