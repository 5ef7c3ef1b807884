// The chroot's only mounts (nothing of the host's file tree is bind-mounted),
// and how to get rid of mounts and of folders that might still hold one.
import { readFileSync, promises as fs } from "node:fs";
import path from "node:path";
import { Unavailable } from "./errors.mjs";
import { SYSTEM } from "./layout.mjs";
import { log } from "./log.mjs";
import { describe, run, tail } from "./processes.mjs";

// postgresql-common's postinst runs systemd-tmpfiles, which refuses to work without /proc:
// mounted for the install only (the server, initdb, pg_ctl and psql were seen to run without it).
export const PROC_MOUNT = { target: "proc", type: "proc", source: "proc", options: "nosuid,nodev,noexec" };
// dynamic_shared_memory_type = posix: without a tmpfs, shm_open() segments would be files on the
// disk, written back under the very I/O being measured. Mounted while a cluster of ours runs.
export const SHM_MOUNT = { target: "dev/shm", type: "tmpfs", source: "inflight-iouring-shm", options: "nosuid,nodev,mode=1777,size=256m" };

/** Mounts whose target is at or under `dir` (host paths), deepest first. */
export function mountsUnder(dir) {
  const prefix = `${dir}/`;
  return readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1])
    .filter(Boolean)
    .map((target) => target.replace(/\\040/g, " ").replace(/\\011/g, "\t").replace(/\\012/g, "\n").replace(/\\134/g, "\\"))
    .filter((target) => target === dir || target.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
}

/** Mounts each of `mounts` (PROC_MOUNT, SHM_MOUNT) inside the chroot unless it is already there. */
export async function ensureMounts(mounts) {
  const mounted = new Set(mountsUnder(SYSTEM));
  for (const m of mounts) {
    const target = path.join(SYSTEM, m.target);
    if (mounted.has(target)) continue;
    await fs.mkdir(target, { recursive: true });
    const result = await run("mount", ["-t", m.type, "-o", m.options, m.source, target]);
    if (result.code !== 0) {
      throw new Unavailable(
        `cannot mount ${m.type} on ${target} (${tail(result.out, 1)}); fix: run with CAP_SYS_ADMIN (a privileged container or the host)`,
      );
    }
  }
}

/** Unmounts everything under `dir`; a busy mount is detached lazily, and said so. */
export async function unmountAll(dir) {
  const targets = mountsUnder(dir);
  for (const target of targets) {
    let result = await run("umount", [target]);
    if (result.code !== 0) {
      log(`umount ${target} failed (${tail(result.out, 1)}); detaching it lazily`);
      result = await run("umount", ["--lazy", target]);
      if (result.code !== 0) throw new Error(`could not unmount ${target}: ${describe(result)}`);
    }
  }
  return targets.length;
}

/** rm -rf that never crosses into a mounted file system (a leftover /proc or a host bind). */
export async function removeTree(dir) {
  await unmountAll(dir);
  if (mountsUnder(dir).length > 0) throw new Error(`refusing to remove ${dir}: something is still mounted under it`);
  const result = await run("rm", ["-rf", "--one-file-system", "--", dir]);
  if (result.code !== 0) throw new Error(`could not remove ${dir}: ${describe(result)}`);
}
