// The lock file under ROOT that lets one invocation of the script work at a time.
import { readFileSync, promises as fs } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ENTRY_SCRIPT, LOCK, ROOT } from "./layout.mjs";
import { log } from "./log.mjs";
import { isAlive } from "./processes.mjs";

/**
 * One invocation at a time changes the system, its mounts and its clusters
 * (a test may start a cluster while a shell runs teardown). A lock held by a
 * dead process is taken over.
 */
export async function withLock(task, waitMs = 15 * 60_000) {
  await fs.mkdir(ROOT, { recursive: true, mode: 0o755 });
  const until = Date.now() + waitMs;
  let reported = false;
  for (;;) {
    try {
      await fs.writeFile(LOCK, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
    }
    const holder = Number.parseInt(await fs.readFile(LOCK, "utf8").catch(() => ""), 10);
    if (!Number.isInteger(holder) || !isAlive(holder) || !isThisScript(holder)) {
      await fs.rm(LOCK, { force: true });
      continue;
    }
    if (!reported) log(`waiting for pid ${holder} (holds ${LOCK})`);
    reported = true;
    if (Date.now() > until) throw new Error(`${LOCK} is still held by pid ${holder} after ${waitMs / 1000} s`);
    await sleep(200);
  }
  try {
    return await task();
  } finally {
    await fs.rm(LOCK, { force: true });
  }
}

/** A lock's pid may have been reused by an unrelated process since its holder died. */
function isThisScript(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(path.basename(ENTRY_SCRIPT));
  } catch {
    return false;
  }
}
