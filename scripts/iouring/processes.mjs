// Running programs: on the host, and inside the chroot as root or as its
// postgres user. A clean environment each time, not the caller's.
import { spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import path from "node:path";
import { SYSTEM } from "./layout.mjs";

/**
 * Runs a program to completion. Output is kept (the last 64 kB of stdout
 * and stderr together, and of stdout alone) and, when `logFile` is given,
 * written there in full.
 */
export function run(command, args, { env = baseEnv(), timeoutMs = 120_000, logFile } = {}) {
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

export function baseEnv(extra = {}) {
  return { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", LANG: "C", LC_ALL: "C", HOME: "/root", ...extra };
}

/** The caller's proxy settings, for the programs that download (debootstrap, apt-get). */
export function proxyEnv() {
  const env = {};
  for (const key of ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy", "NO_PROXY"]) {
    if (process.env[key]) env[key] = process.env[key];
  }
  return env;
}

export function tail(text, lines = 6) {
  return text.trimEnd().split("\n").slice(-lines).join(" | ");
}

/** How a run ended, with the end of its output, for an error message. */
export function describe(result) {
  const how = result.signal ? `signal ${result.signal}` : `exit code ${result.code}`;
  const text = tail(result.out, 4);
  return text ? `${how}: ${text}` : how;
}

/** Runs a command inside the chroot as root (apt, dpkg, ldd). */
export function inRoot(args, opts = {}) {
  return run("chroot", [SYSTEM, ...args], { ...opts, env: baseEnv({ DEBIAN_FRONTEND: "noninteractive", ...opts.env }) });
}

/** Runs a PostgreSQL tool inside the chroot as its postgres user (PostgreSQL refuses root). */
export function asPostgres(args, opts = {}) {
  const { uid, gid } = postgresUser();
  return run("chroot", [`--userspec=${uid}:${gid}`, `--groups=${gid}`, SYSTEM, ...args], {
    ...opts,
    env: baseEnv({ HOME: "/var/lib/postgresql", PGTZ: "UTC" }),
  });
}

/** The chroot's postgres user, created by postgresql-common (its uid need not match the host's). */
export function postgresUser() {
  const line = readFileSync(path.join(SYSTEM, "etc/passwd"), "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error(`no postgres user in ${SYSTEM}/etc/passwd: the install is incomplete; run setup`);
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/** kill(pid, 0) and not a zombie: a PID 1 that never reaps keeps exited postmasters as zombies. */
export function isAlive(pid) {
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
