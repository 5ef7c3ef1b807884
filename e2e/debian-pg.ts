// Debian's PostgreSQL in the folder scripts/iouring-pg.mjs makes (18 with
// liburing, 19 from experimental), for the specs that watch a cluster there.
// Where the machine cannot make the folder (exit 3), the run fails with the
// reason; IOURING_TESTS=skip leaves these specs out in playwright.config.ts,
// saying so, before they are loaded.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { unavailableOrThrow } from "../test/support/iouring";

const SCRIPT = path.resolve(import.meta.dirname, "..", "scripts", "iouring-pg.mjs");

/** What start, restart and upgrade print (one JSON line). */
export interface DebianCluster {
  superuserUrl: string;
  dataDir: string;
  port: number;
}

/** Makes the folder (cached after the first run) for `major`, at the spec's load; fails with the reason where it cannot. */
export function debianFolder(major: 18 | 19 = 18): void {
  const args = major === 19 ? ["setup", "--major", "19"] : ["setup"];
  const setup = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8", timeout: 20 * 60_000 });
  if (setup.status === 3)
    unavailableOrThrow(
      setup.stderr
        .trim()
        .split("\n")
        .pop()!
        .replace(/^\[iouring\] unavailable: /, ""),
    );
  if (setup.status !== 0) throw new Error(`iouring-pg.mjs ${args.join(" ")} failed: ${setup.stderr}`);
}

/** Runs `iouring-pg.mjs start|restart|upgrade ...` and returns the cluster it printed; throws with its stderr. */
export function debianPg(...args: string[]): DebianCluster {
  const run = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8", timeout: 120_000 });
  if (run.status !== 0) throw new Error(`iouring-pg.mjs ${args.join(" ")}: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").pop()!) as DebianCluster;
}

/** Stops a cluster and removes its data directory (an afterAll's cleanup: never throws). */
export function removeDebianPg(name: string): void {
  spawnSync(process.execPath, [SCRIPT, "stop", "--data", name, "--remove"], { timeout: 120_000 });
}
