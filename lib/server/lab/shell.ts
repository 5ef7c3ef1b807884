import "server-only";
import { spawn } from "node:child_process";
import type { IoMethod } from "../../schemas/enums";
import type { LabCluster } from "./cluster";

// `npm run lab`'s cluster: one the user controls, restarted (and its cache
// dropped) by commands they give. The commands run in a process group of
// their own, so a Ctrl-C in the terminal reaches the lab (which then puts
// io_method back) and not a restart halfway through.

const COMMAND_TIMEOUT_MS = 5 * 60_000;

/** 'a b' -> "'a b'": one word for sh. */
export const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** Runs `sh -c command`; a non-zero exit is an error carrying the end of its output. */
export function runShell(command: string, timeoutMs = COMMAND_TIMEOUT_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], { detached: true, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let output = "";
    const keep = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-4000));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (err) => reject(new Error(`could not run the command: ${err.message}`)));
    child.on("close", (code, signal) => {
      if (code === 0) return resolve();
      const tail = output.trim().split("\n").filter(Boolean).slice(-2).join(" | ");
      reject(new Error(`the command ${signal ? `was killed (${signal})` : `exited ${code}`}${tail ? `: ${tail}` : ""}`));
    });
  });
}

export interface CommandClusterOptions {
  url: string;
  /** run to restart the server; {method} in it becomes the io_method to come up with; null: none given (a reload lever's lab needs none) */
  restart: string | null;
  /** run before each run to drop the page cache; {files} in it becomes the tables' files */
  dropCache: string | null;
  dataDir: string | null;
}

export function commandCluster(o: CommandClusterOptions): LabCluster {
  return {
    url: o.url,
    dataDir: o.dataDir,
    restart: (method: IoMethod) =>
      o.restart === null ? Promise.reject(new Error("no --restart command was given")) : runShell(o.restart.replaceAll("{method}", method)),
    dropCache: o.dropCache === null ? null : (files) => runShell(o.dropCache!.replaceAll("{files}", files.map(shellQuote).join(" "))),
    cold:
      o.dropCache === null
        ? "restarted into the io_method before every run (PostgreSQL's buffers empty); the OS page cache was NOT dropped (no --drop-cache)"
        : `restarted into the io_method before every run (PostgreSQL's buffers empty), then the page cache dropped with: ${o.dropCache}`,
  };
}
