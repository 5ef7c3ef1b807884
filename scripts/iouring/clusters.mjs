// The clusters on disk, under system/var/lib/inflight/<name>: naming, their
// state (made, running, on which port), their password, and initdb.
import { randomBytes } from "node:crypto";
import { existsSync, promises as fs, readFileSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { UsageError } from "./errors.mjs";
import { CLUSTERS_IN, DEFAULT_MAJOR, INCLUDE_LINE, SYSTEM, listDir, pgBinIn, readJson } from "./layout.mjs";
import { log } from "./log.mjs";
import { asPostgres, describe, isAlive, postgresUser } from "./processes.mjs";

export function cluster(name) {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(name ?? "")) {
    throw new UsageError(`--data wants a name of letters, digits, '_' and '-' (got ${JSON.stringify(name ?? "")})`);
  }
  const inner = `${CLUSTERS_IN}/${name}`;
  const host = path.join(SYSTEM, inner);
  return { name, inner, host, secrets: `${host}.secrets.json` };
}

/** The major a cluster was made with (its PG_VERSION): its own pg_ctl and psql run it. */
export function majorOf(c) {
  try {
    return Number.parseInt(readFileSync(path.join(c.host, "PG_VERSION"), "utf8"), 10) || DEFAULT_MAJOR;
  } catch (err) {
    if (err.code === "ENOENT") return DEFAULT_MAJOR;
    throw err;
  }
}

/** The cluster's bin folder inside the chroot. */
export function binOf(c) {
  return pgBinIn(majorOf(c));
}

export function clusterNames() {
  const dir = path.join(SYSTEM, CLUSTERS_IN);
  return listDir(dir).filter((n) => existsSync(path.join(dir, n, "PG_VERSION")));
}

export function runningClusters() {
  return clusterNames().filter((n) => postmasterPid(cluster(n)) !== null);
}

/** "ready" (our initdb finished), "empty", or "unfinished" (initdb killed: our include line comes last). */
export function inspect(c) {
  if (!existsSync(c.host)) return "empty";
  if (!existsSync(path.join(c.host, "PG_VERSION"))) return listDir(c.host).length === 0 ? "empty" : "unfinished";
  const conf = existsSync(path.join(c.host, "postgresql.conf")) ? readFileSync(path.join(c.host, "postgresql.conf"), "utf8") : "";
  return conf.includes(INCLUDE_LINE) && existsSync(c.secrets) ? "ready" : "unfinished";
}

function pidFileLines(c) {
  try {
    return readFileSync(path.join(c.host, "postmaster.pid"), "utf8").split("\n");
  } catch (err) {
    if (err.code === "ENOENT") return null;
    throw err;
  }
}

/**
 * The running postmaster of this cluster, or null. A pid file alone proves
 * nothing after a crash; a postmaster's cwd is its data dir (seen from the
 * host as the host path).
 */
export function postmasterPid(c) {
  const lines = pidFileLines(c);
  const pid = Number.parseInt(lines?.[0] ?? "", 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null;
  try {
    return readlinkSync(`/proc/${pid}/cwd`) === realpathSync(c.host) ? pid : null;
  } catch {
    return null;
  }
}

export function portOf(c) {
  const port = Number.parseInt(pidFileLines(c)?.[3] ?? "", 10);
  return Number.isInteger(port) ? port : null;
}

export function readSecrets(c) {
  const secrets = readJson(c.secrets);
  if (!secrets?.superuserPassword)
    throw new Error(`${c.secrets} is missing or holds no superuserPassword; stop --data ${c.name} --remove and start again`);
  return secrets;
}

/** Written before initdb, beside the data dir (root only), so no cluster exists whose password nobody knows. */
async function createSecrets(c) {
  const secrets = { superuserPassword: randomBytes(24).toString("hex") };
  await fs.writeFile(c.secrets, `${JSON.stringify(secrets)}\n`, { mode: 0o600 });
  return secrets;
}

/** `checksums`: false for a cluster without data checksums (on by default since 18). */
export async function initdb(c, major = DEFAULT_MAJOR, { checksums = true } = {}) {
  const { uid, gid } = postgresUser();
  const parent = path.dirname(c.host);
  await fs.mkdir(parent, { recursive: true, mode: 0o755 });
  await fs.chmod(parent, 0o755);
  // A run killed during initdb leaves its password file behind: it holds a superuser password.
  for (const stale of listDir(parent).filter((f) => f.startsWith(`.${c.name}.pw-`))) await fs.rm(path.join(parent, stale), { force: true });
  const secrets = await createSecrets(c);
  await fs.mkdir(c.host, { mode: 0o700 });
  await fs.chown(c.host, uid, gid);
  const pwName = `.${c.name}.pw-${randomBytes(6).toString("hex")}`;
  const pwHost = path.join(parent, pwName);
  await fs.writeFile(pwHost, `${secrets.superuserPassword}\n`, { mode: 0o600, flag: "wx" });
  try {
    await fs.chown(pwHost, uid, gid);
    const result = await asPostgres([
      `${pgBinIn(major)}/initdb`,
      "-D",
      c.inner,
      "-U",
      "postgres",
      `--pwfile=${CLUSTERS_IN}/${pwName}`,
      "--auth-local=peer",
      "--auth-host=scram-sha-256",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-instructions",
      ...(checksums ? [] : ["--no-data-checksums"]),
    ]);
    if (result.code !== 0) throw new Error(`initdb failed (${describe(result)})`);
    await fs.appendFile(path.join(c.host, "postgresql.conf"), `\n# inflight's settings; ALTER SYSTEM overrides them\n${INCLUDE_LINE}\n`);
  } catch (err) {
    await fs.rm(c.host, { recursive: true, force: true });
    throw err;
  } finally {
    await fs.rm(pwHost, { force: true });
  }
}

/** A pid file naming a dead or foreign process would make PostgreSQL refuse to start. */
export async function clearStalePidFile(c) {
  if (pidFileLines(c) === null) return;
  log(`removing a stale postmaster.pid in ${c.host}`);
  await fs.rm(path.join(c.host, "postmaster.pid"), { force: true });
}
