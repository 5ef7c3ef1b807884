#!/usr/bin/env node
// `inflight`: the command the package installs. It turns its arguments into
// the environment variables inflight reads (lib/server/config/config.ts
// stays the one parser of values), then serves in this process as
// `npm start` does (scripts/start.mjs). `inflight lab ...` runs the A/B lab.
import { readFileSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(realpathSync(fileURLToPath(import.meta.url))), "..");
const { version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
/** Installed by npm (the package sits in a node_modules folder), not run from a checkout. */
const INSTALLED = root.split(path.sep).includes("node_modules");

/** The flags that set a variable, each with the variable (one parser: config.ts reads the variable). */
const SETTINGS = {
  port: "PORT",
  host: "HOST",
  "sample-ms": "INFLIGHT_SAMPLE_MS",
  window: "INFLIGHT_WINDOW",
  budget: "INFLIGHT_BUDGET",
  "history-file": "INFLIGHT_HISTORY_FILE",
  "auth-token": "INFLIGHT_AUTH_TOKEN",
  config: "INFLIGHT_CONFIG",
};
/** Flags whose value is a path: resolved against the folder the command runs in, not the package's. */
const PATHS = new Set(["history-file", "config"]);
const TARGET_SETTINGS = ["DATABASE_URL", "INFLIGHT_TARGETS", "INFLIGHT_CONFIG"];

const HELP = `inflight ${version}: a live view of PostgreSQL 18 and 19 asynchronous I/O in the browser

Usage:
  inflight [options] [URL ...]     watch the servers at these postgres:// URLs
  inflight [options]               no target: an embedded PostgreSQL 18 demo
  inflight lab --help              the A/B lab (io_method, io workers, read-ahead) on a server you control

Targets:
  URL                  postgres://user:password@host:5432/db, named after its host
                       (two on one host: db1-5432, db1-5433); name=URL names it yourself.
                       Prefer a password in ~/.pgpass or PGPASSWORD: arguments show in ps
  --config FILE        a JSON file {"targets": [{"name": "...", "url": "..."}]}
                       Targets given here replace DATABASE_URL, INFLIGHT_TARGETS and
                       INFLIGHT_CONFIG from the environment.

Options (each sets the variable named beside it; every INFLIGHT_* variable is read too):
  --port N             PORT: where to serve (default 3000)
  --host ADDRESS       HOST: the address to bind (default 127.0.0.1; another
                       address needs an auth token)
  --auth-token TOKEN   INFLIGHT_AUTH_TOKEN: required beyond loopback, 16 characters or more
                       (better set in the environment: arguments show in ps)
  --sample-ms N        INFLIGHT_SAMPLE_MS: the fast sampling interval (default 100;
                       250 where pg_wait_sampling gives the wait events)
  --window DURATION    INFLIGHT_WINDOW: what the live view keeps (default 15m)
  --budget MS          INFLIGHT_BUDGET: server time watching may cost each target,
                       ms per second (default 5)
  --history-file FILE  INFLIGHT_HISTORY_FILE: the history on disk
  -h, --help           this text
  -v, --version        the version

Data: the demo's cluster and the history go to $XDG_STATE_HOME/inflight, else
~/.local/state/inflight (in a checkout: .inflight/ in the project folder).
Stop with Ctrl-C or SIGTERM: the collectors and the demo's PostgreSQL stop first.
`;

function usageError(problem) {
  console.error(`inflight: bad argument: ${problem} (inflight --help)`);
  process.exit(1);
}

/** One line from node:util's parseArgs errors: the flag, what is wrong with it. */
function argProblem(err) {
  const flag = /'(-[^' ]+)/.exec(err.message)?.[1] ?? "";
  if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `${flag}: not an option of inflight`;
  if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") return `${flag}: needs a value`;
  return err.message.split("\n")[0];
}

function parse(argv) {
  const options = Object.fromEntries(Object.keys(SETTINGS).map((name) => [name, { type: "string" }]));
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { ...options, help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } },
    });
  } catch (err) {
    return usageError(argProblem(err));
  }
}

const URL_ARG = /^(?:([A-Za-z0-9][A-Za-z0-9_.-]*)=)?(postgres(?:ql)?:\/\/.*)$/s;

/** A host's name as a target name: config.ts accepts letters, digits, "_", "-" and ".". */
function hostOf(url) {
  try {
    const u = new URL(url);
    const host = u.hostname
      .replace(/[^A-Za-z0-9_.-]/g, "-")
      .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "")
      .slice(0, 50);
    return { host: host || "target", port: u.port || "5432" };
  } catch {
    return { host: "target", port: "" };
  }
}

/** "name=url,name2=url2" for INFLIGHT_TARGETS: names given, else the host, else host-port, else numbered. */
export function targetsSetting(args) {
  const parsed = args.map((arg, i) => {
    const m = URL_ARG.exec(arg);
    // The argument is not echoed: it may be a URL with a password and a typo.
    if (!m) usageError(`argument ${i + 1} is not a postgres:// or postgresql:// URL`);
    return { name: m[1], url: m[2], ...hostOf(m[2]) };
  });
  const count = (key) => parsed.filter((t) => !t.name && t.host === key).length;
  const used = new Set(parsed.filter((t) => t.name).map((t) => t.name));
  const named = parsed.map((t) => {
    if (t.name) return t;
    let name = count(t.host) > 1 && t.port ? `${t.host}-${t.port}` : t.host;
    for (let n = 2; used.has(name); n++) name = `${t.host}-${n}`;
    used.add(name);
    return { ...t, name };
  });
  // INFLIGHT_TARGETS splits on ","; in a URL it is written %2C (a password's is decoded by pg).
  return named.map((t) => `${t.name}=${t.url.replaceAll(",", "%2C")}`).join(",");
}

/** Where an installed inflight keeps its data; null in a checkout (.inflight/, as npm start). */
function stateDir(env) {
  if (!INSTALLED) return null;
  const base =
    env.XDG_STATE_HOME?.trim() && path.isAbsolute(env.XDG_STATE_HOME.trim())
      ? env.XDG_STATE_HOME.trim()
      : path.join(os.homedir(), ".local", "state");
  return path.join(base, "inflight");
}

/** Sets the variables the arguments stand for (a flag wins over its variable), and the installed defaults. */
function configure(values, positionals, env) {
  const fromFlags = {};
  if (positionals.length || values.config !== undefined) for (const key of TARGET_SETTINGS) delete env[key];
  if (positionals.length === 1 && !URL_ARG.exec(positionals[0])?.[1]) {
    if (!URL_ARG.test(positionals[0])) usageError("argument 1 is not a postgres:// or postgresql:// URL");
    env.DATABASE_URL = positionals[0];
    fromFlags.DATABASE_URL = "the target argument";
  } else if (positionals.length) {
    env.INFLIGHT_TARGETS = targetsSetting(positionals);
    fromFlags.INFLIGHT_TARGETS = "the target arguments";
  }
  for (const [flag, variable] of Object.entries(SETTINGS)) {
    const value = values[flag];
    if (value === undefined) continue;
    // An empty value would read as unset, and the default would stand in silence.
    if (value.trim() === "") usageError(`--${flag}: needs a value`);
    env[variable] = PATHS.has(flag) ? path.resolve(value) : value;
    fromFlags[variable] = `--${flag}`;
  }
  // Paths given in the environment are the caller's too: start.mjs moves into the package's folder.
  for (const variable of ["INFLIGHT_CONFIG", "INFLIGHT_HISTORY_FILE", "INFLIGHT_DEMO_DIR"]) {
    if (env[variable]?.trim() && !path.isAbsolute(env[variable].trim())) env[variable] = path.resolve(env[variable].trim());
  }
  const state = stateDir(env);
  if (state) {
    env.INFLIGHT_DEMO_DIR ||= state;
    env.INFLIGHT_HISTORY_FILE ||= path.join(state, "history.db");
  }
  // A bad value is named by the flag the user typed (config.ts and start.mjs read this).
  globalThis[Symbol.for("inflight.flags")] = fromFlags;
  env.NEXT_TELEMETRY_DISABLED = "1";
}

async function runLab(argv) {
  // The lab keeps its result in the history the installed dashboard reads (a path given stays the caller's).
  const state = stateDir(process.env);
  if (process.env.INFLIGHT_HISTORY_FILE?.trim()) process.env.INFLIGHT_HISTORY_FILE = path.resolve(process.env.INFLIGHT_HISTORY_FILE.trim());
  else if (state) process.env.INFLIGHT_HISTORY_FILE = path.join(state, "history.db");
  // A checkout runs the lab's TypeScript (scripts/lab.mjs); the package ships it bundled (scripts/prepack.mjs).
  const cli = INSTALLED
    ? await import(pathToFileURL(path.join(root, "dist", "lab.mjs")).href)
    : await (await import(pathToFileURL(path.join(root, "scripts", "lab.mjs")).href)).loadLab();
  process.exitCode = await cli.main(argv);
}

async function main(argv) {
  if (argv[0] === "lab") return runLab(argv.slice(1));
  const { values, positionals } = parse(argv);
  if (values.help) return void process.stdout.write(HELP);
  if (values.version) return void console.log(version);
  configure(values, positionals, process.env);
  const { start } = await import(pathToFileURL(path.join(root, "scripts", "start.mjs")).href);
  // A checkout builds when its sources changed (as npm start); the package ships its build.
  await start({ build: !INSTALLED });
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
