import "server-only";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/** What the demo needs from a PostgreSQL's bin directory. */
const PROGRAMS = ["postgres", "pg_ctl", "initdb"] as const;

/**
 * Why a directory given as INFLIGHT_DEMO_PG_BIN cannot run the demo, in one
 * line; null when it holds PostgreSQL 18's programs. (`postgres --version`
 * runs as anyone; only the server refuses root.)
 */
export function pgBinProblem(dir: string): string | null {
  const missing = PROGRAMS.filter((p) => !existsSync(path.join(/*turbopackIgnore: true*/ dir, p)));
  if (missing.length) return `${dir} has no ${missing.join(", ")}: give the bin directory of a PostgreSQL 18 (e.g. /usr/lib/postgresql/18/bin)`;
  const out = spawnSync(path.join(/*turbopackIgnore: true*/ dir, "postgres"), ["--version"], { encoding: "utf8", timeout: 10_000 });
  const version = /\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?/.exec(out.stdout ?? "");
  if (out.status !== 0 || !version) return `${path.join(dir, "postgres")} --version did not say which PostgreSQL it is${out.stderr ? ` (${out.stderr.trim().split("\n")[0]})` : ""}`;
  if (version[1] !== "18") return `${dir} holds PostgreSQL ${version[1]}${version[2] ? `.${version[2]}` : ""}, not 18: the demo needs PostgreSQL 18`;
  return null;
}
