// upgrade: pg_upgrade of a cluster to a newer major in the same folder (18
// to 19), coming back on the same port with the same password, as an
// operator's upgrade does: the old server stops, a new cluster is made and
// upgraded from it, then takes the old one's place and starts.
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { binOf, cluster, initdb, inspect, majorOf, postmasterPid } from "./clusters.mjs";
import { UsageError } from "./errors.mjs";
import { CONF_FILE, pgBinIn } from "./layout.mjs";
import { log, phase } from "./log.mjs";
import { asPostgres, describe, postgresUser, tail } from "./processes.mjs";
import { startOnConfiguredPort, stopServer } from "./server.mjs";

/** pg_upgrade's own servers listen here, on the chroot's /tmp (its cwd and socket folder: both must be the postgres user's to write). */
const UPGRADE_PORTS = { old: 50432, new: 50433 };

/** The settings file without the lines `major` has no parameter for (postgres --describe-config names them all). */
async function keptSettings(text, major) {
  // Names only (cut): the whole description runs past what a run keeps of stdout.
  const described = await asPostgres(["sh", "-c", `${pgBinIn(major)}/postgres --describe-config | cut -f1`]);
  if (described.code !== 0) throw new Error(`postgres --describe-config of ${major} failed (${describe(described)})`);
  const known = new Set(
    described.stdout
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean),
  );
  if (!known.has("io_method")) throw new Error(`postgres --describe-config of ${major} named no io_method: ${tail(described.stdout, 1)}`);
  const lines = text.split("\n").filter((line) => {
    const name = /^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=/.exec(line)?.[1];
    // Dotted names are extensions' (pg_stat_statements.track): the new server takes them as they are.
    if (!name || name.includes(".") || known.has(name)) return true;
    log(`${name} dropped from ${CONF_FILE}: PostgreSQL ${major} has no such setting`);
    return false;
  });
  return lines.join("\n");
}

export async function upgradeCluster(name, major) {
  const c = cluster(name);
  if (inspect(c) !== "ready") throw new UsageError(`no cluster named ${name} (start --data ${name} makes it)`);
  const from = majorOf(c);
  if (from >= major) throw new UsageError(`${name} is PostgreSQL ${from} already: --major must be newer`);
  const next = cluster(`${name}-to${major}`);
  await fs.rm(next.host, { recursive: true, force: true });
  await fs.rm(next.secrets, { force: true });
  if (postmasterPid(c) !== null) await phase(`stop ${name} (${from})`, () => stopServer(c));
  await phase(`initdb ${next.name} (${major})`, () => initdb(next, major));
  // The same settings (port, io_method, pg_stat_statements): the include file comes along,
  // less what the new major does not know (io_workers on 19: its server would not start with it).
  const conf = path.join(next.host, CONF_FILE);
  await fs.writeFile(conf, await keptSettings(await fs.readFile(path.join(c.host, CONF_FILE), "utf8"), major), { mode: 0o600 });
  const { uid, gid } = postgresUser();
  await fs.chown(conf, uid, gid);
  const upgrade = [
    `${pgBinIn(major)}/pg_upgrade`,
    "-b",
    binOf(c),
    "-B",
    pgBinIn(major),
    "-d",
    c.inner,
    "-D",
    next.inner,
    "-U",
    "postgres",
    "-p",
    String(UPGRADE_PORTS.old),
    "-P",
    String(UPGRADE_PORTS.new),
    "--socketdir",
    "/tmp",
  ];
  const result = await phase(`pg_upgrade ${name} ${from} -> ${major}`, () =>
    asPostgres(["sh", "-c", 'cd /tmp && exec "$@"', "sh", ...upgrade], { timeoutMs: 10 * 60_000 }),
  );
  if (result.code !== 0) {
    await fs.rm(next.host, { recursive: true, force: true });
    await fs.rm(next.secrets, { force: true });
    throw new Error(
      `pg_upgrade ${from} -> ${major} failed (${describe(result)}); ${name} is left as it was (start it again with restart --data ${name})`,
    );
  }
  // The new cluster takes the old one's place; its roles (and so the password in the old secrets file) came across.
  const old = `${c.host}.old-${from}`;
  await fs.rm(old, { recursive: true, force: true });
  await fs.rename(c.host, old);
  await fs.rename(next.host, c.host);
  await fs.rm(next.secrets, { force: true });
  await fs.rm(old, { recursive: true, force: true });
  if (existsSync(path.join(c.host, "postmaster.pid"))) await fs.rm(path.join(c.host, "postmaster.pid"), { force: true });
  await phase(`start ${name} (${major})`, () => startOnConfiguredPort(c));
  log(`${name} upgraded from PostgreSQL ${from} to ${major}`);
}
