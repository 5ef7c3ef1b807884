// Where everything lives: on the host under <project>/.inflight/iouring/
// (IOURING_TESTS_ROOT overrides), and inside the chroot (the *_IN paths).
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The CLI entry point: the lock recognises its holder by this name in /proc/<pid>/cmdline. */
export const ENTRY_SCRIPT = path.join(PROJECT, "scripts", "iouring-pg.mjs");
export const ROOT = realPathOf(path.resolve(process.env.IOURING_TESTS_ROOT || path.join(PROJECT, ".inflight", "iouring")));
export const SYSTEM = path.join(ROOT, "system");
export const PARTIAL = path.join(ROOT, "system.partial");
export const LOGS = path.join(ROOT, "logs");
export const LOCK = path.join(ROOT, "lock");
export const BOOTSTRAP_MARK = ".inflight-bootstrap.json";
export const INSTALL_MARK = ".inflight-install.json";
/** The majors this folder can hold: 18 from the suite itself, 19 from Debian experimental. */
export const MAJORS = [18, 19];
export const DEFAULT_MAJOR = 18;

/** Each major's install is marked apart (18's mark keeps its name: folders made before 19 stay cached). */
export function installMark(major) {
  return major === DEFAULT_MAJOR ? INSTALL_MARK : `.inflight-install-${major}.json`;
}
/** An extension's install for a major, marked apart from the server's (extensions.mjs). */
export function extensionMark(major, extension) {
  return `.inflight-ext-${extension}-${major}.json`;
}
export const SUITES = (process.env.IOURING_TESTS_SUITES || "sid testing forky").split(/[\s,]+/).filter(Boolean);

export const CLUSTERS_IN = "/var/lib/inflight";
export const pgBinIn = (major) => `/usr/lib/postgresql/${major}/bin`;
export const pgLibIn = (major) => `/usr/lib/postgresql/${major}/lib`;
export const pgssControlIn = (major) => `/usr/share/postgresql/${major}/extension/pg_stat_statements.control`;
export const CONF_FILE = "inflight.conf";
export const INCLUDE_LINE = `include_if_exists '${CONF_FILE}'`;
export const LOG_FILE = "postgres.log";

/** /proc/self/mounts and /proc/<pid>/cwd speak in real paths: resolve the part of `p` that exists. */
function realPathOf(p) {
  const rest = [];
  for (let dir = p; ; dir = path.dirname(dir)) {
    try {
      return path.join(realpathSync(dir), ...rest);
    } catch (err) {
      if (err.code !== "ENOENT" || dir === path.dirname(dir)) throw err;
      rest.unshift(path.basename(dir));
    }
  }
}

/** A JSON file's value, or null when there is no such file. */
export function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    if (err.code === "ENOENT") return null;
    throw err;
  }
}

/** A folder's entries, sorted; none when there is no such folder. */
export function listDir(dir) {
  try {
    return readdirSync(dir).sort();
  } catch (err) {
    if (err.code === "ENOENT") return [];
    throw err;
  }
}
