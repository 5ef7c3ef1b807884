import "server-only";

import { promises as fs, readFileSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import { LOG_FILE, START_TIMEOUT_S, type Cluster, type Context } from "./cluster";
import { run, summarize } from "./process";

// The embedded cluster's postmaster: is it running (and really ours), start
// and stop through pg_ctl, and clearing what a killed run left behind.

// ---------------------------------------------------------------- postmaster

/** The pid recorded in postmaster.pid, whether or not that process still exists. */
function pidFromFile(dataDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(path.join(dataDir, "postmaster.pid"), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const pid = Number.parseInt(text.split("\n")[0] ?? "", 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * The running postmaster of this data dir, or null. A pid file alone proves
 * nothing: after a crash or reboot its pid may belong to any process, even
 * another cluster's postmaster, and pg_ctl stop would signal that process.
 * A postmaster chdirs into its data dir, so /proc/<pid>/cwd identifies it.
 */
export function postmasterPid(dataDir: string): number | null {
  const pid = pidFromFile(dataDir);
  return pid !== null && isAlive(pid) && cwdOf(pid) === realpathSync(dataDir) ? pid : null;
}

function cwdOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EACCES" || code === "EPERM") return null;
    throw err;
  }
}

/**
 * kill(pid, 0) alone is not enough: the postmaster is re-parented to PID 1,
 * and a PID 1 that never reaps (common in containers) keeps it as a zombie.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
    if ((err as NodeJS.ErrnoException).code !== "EPERM") throw err;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}

/**
 * Makes the data dir startable: a postmaster left running by a killed
 * previous run is stopped, and a pid file naming some other process (which
 * would make PostgreSQL refuse to start) is removed.
 */
export async function clearLeftover(ctx: Cluster): Promise<void> {
  const pid = pidFromFile(ctx.dataDir);
  if (pid === null) return;
  if (postmasterPid(ctx.dataDir) === pid) {
    ctx.log(`stopping a PostgreSQL left running on ${ctx.dataDir} (pid ${pid})`);
    await pgCtlStop(ctx, "fast");
    return;
  }
  ctx.log(`removing a stale postmaster.pid in ${ctx.dataDir} (pid ${pid} is not its postmaster)`);
  await fs.rm(path.join(ctx.dataDir, "postmaster.pid"), { force: true });
}

async function logTail(dataDir: string, lines = 12): Promise<string> {
  try {
    const text = await fs.readFile(path.join(dataDir, LOG_FILE), "utf8");
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "(no server log yet)";
    throw err;
  }
}

/**
 * pg_ctl -w returns once the postmaster accepts connections. The postmaster
 * is not our child, so a restart does not depend on this process.
 */
export async function pgCtlStart(ctx: Context): Promise<void> {
  const logFile = path.join(ctx.dataDir, LOG_FILE);
  const result = await run(
    path.join(ctx.binDir, "pg_ctl"),
    ["start", "-D", ctx.dataDir, "-l", logFile, "-w", "-t", String(START_TIMEOUT_S), "-s"],
    { runAs: ctx.runAs, cwd: path.dirname(ctx.dataDir), timeoutMs: (START_TIMEOUT_S + 15) * 1000 },
  );
  if (result.code === 0) return;
  const tail = await logTail(ctx.dataDir);
  throw new Error(`embedded PostgreSQL did not start on port ${ctx.port} (pg_ctl ${summarize(result)}); end of ${logFile}:\n${tail}`);
}

export async function pgCtlStop(ctx: Cluster, mode: "fast" | "immediate"): Promise<void> {
  const pid = postmasterPid(ctx.dataDir);
  if (pid === null) return;
  const result = await run(
    path.join(ctx.binDir, "pg_ctl"),
    ["stop", "-D", ctx.dataDir, "-m", mode, "-w", "-t", String(START_TIMEOUT_S), "-s"],
    { runAs: ctx.runAs, cwd: path.dirname(ctx.dataDir), timeoutMs: (START_TIMEOUT_S + 15) * 1000 },
  );
  // A postmaster that was already shutting down (e.g. Ctrl-C reached it too) makes pg_ctl fail harmlessly.
  if (result.code !== 0 && isAlive(pid)) {
    throw new Error(`embedded PostgreSQL (pid ${pid}) did not stop (pg_ctl ${summarize(result)})`);
  }
  await waitForExit(pid, 15_000);
}

/** pg_ctl waits for postmaster.pid to vanish; the process itself may still be finishing its exit. */
async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`PostgreSQL postmaster pid ${pid} still alive ${timeoutMs} ms after stop`);
    await sleep(25);
  }
}
