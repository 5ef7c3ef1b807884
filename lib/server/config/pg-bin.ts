import "server-only";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/** What the demo needs from a PostgreSQL's bin directory. */
const PROGRAMS = ["postgres", "pg_ctl", "initdb"] as const;

/** The majors the demo runs: 18 (io_workers) and 19 (the self-sizing pool). */
export const DEMO_MAJORS = [18, 19] as const;

/** `postgres --version` of a bin directory: its major ("19rc1" and "19.0" are 19), or why it did not say. */
export function pgBinMajor(dir: string): { major: number; text: string } | { problem: string } {
  const out = spawnSync(path.join(/*turbopackIgnore: true*/ dir, "postgres"), ["--version"], { encoding: "utf8", timeout: 10_000 });
  const version = /\(PostgreSQL\)\s+(\d+)(\S*)/.exec(out.stdout ?? "");
  if (out.status !== 0 || !version)
    return {
      problem: `${path.join(dir, "postgres")} --version did not say which PostgreSQL it is${out.stderr ? ` (${out.stderr.trim().split("\n")[0]})` : ""}`,
    };
  return { major: Number(version[1]), text: `${version[1]}${version[2]}` };
}

/**
 * Why a directory given as INFLIGHT_DEMO_PG_BIN cannot run the demo, in one
 * line; null when it holds PostgreSQL 18's or 19's programs. (`postgres
 * --version` runs as anyone; only the server refuses root.)
 */
export function pgBinProblem(dir: string): string | null {
  const missing = PROGRAMS.filter((p) => !existsSync(path.join(/*turbopackIgnore: true*/ dir, p)));
  if (missing.length)
    return `${dir} has no ${missing.join(", ")}: give the bin directory of a PostgreSQL 18 or 19 (e.g. /usr/lib/postgresql/19/bin)`;
  const found = pgBinMajor(dir);
  if ("problem" in found) return found.problem;
  if (!(DEMO_MAJORS as readonly number[]).includes(found.major))
    return `${dir} holds PostgreSQL ${found.text}, not 18 or 19: the demo needs PostgreSQL 18 or 19`;
  return null;
}
