// Helpers for the lab's tests: `npm run lab` as a child process, and a
// restart command for a PostgreSQL of the test's own (pg_ctl, as the OS
// user postgres when the tests run as root).
import { spawn } from "node:child_process";
import { readlinkSync } from "node:fs";
import path from "node:path";
import type { EmbeddedServer } from "../../lib/server/demo/embedded";
import { shellQuote } from "../../lib/server/lab/shell";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** pg_ctl of the running server's own binaries (found from its postmaster). */
function pgCtl(server: EmbeddedServer): string {
  const pid = server.pid();
  if (pid === null) throw new Error("the server is not running");
  return path.join(path.dirname(readlinkSync(`/proc/${pid}/exe`)), "pg_ctl");
}

const asPostgres = () => (process.getuid?.() === 0 ? "runuser -u postgres -- " : "");

/** `pg_ctl restart` of the server: a --restart command for the lab (the io_method comes from ALTER SYSTEM). */
export function restartCommand(server: EmbeddedServer): string {
  const d = server.dataDir;
  return `${asPostgres()}${shellQuote(pgCtl(server))} restart -D ${shellQuote(d)} -m fast -w -s -l ${shellQuote(path.join(d, "postgres.log"))}`;
}

/** `pg_ctl stop` of the server: part of a restart command that leaves it down. */
export function stopCommand(server: EmbeddedServer): string {
  return `${asPostgres()}${shellQuote(pgCtl(server))} stop -D ${shellQuote(server.dataDir)} -m fast -w -s`;
}

export interface LabProcess {
  /** resolves with the exit code when the lab has ended */
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
  signal(name: NodeJS.Signals): void;
}

/** `node scripts/lab.mjs ARGS`, as `npm run lab -- ARGS` runs it; `env` on top of this process's (INFLIGHT_HISTORY_FILE: where it keeps its result). */
export function startLab(args: string[], env: Record<string, string> = {}): LabProcess {
  const child = spawn(process.execPath, [path.join(ROOT, "scripts", "lab.mjs"), ...args], {
    cwd: ROOT,
    env: { ...process.env, INFLIGHT_HISTORY: "off", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code, signal) => resolve(signal ? 128 : code)));
  return { exited, stdout: () => out, stderr: () => err, signal: (name) => child.kill(name) };
}
