// setup: a Debian of a newer suite (debootstrap --variant=minbase) with
// postgresql-18 installed, and postgresql-19 from experimental when asked
// for, each step done once and marked as done.
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { Unavailable } from "./errors.mjs";
import {
  BOOTSTRAP_MARK,
  DEFAULT_MAJOR,
  LOGS,
  PARTIAL,
  SUITES,
  SYSTEM,
  installMark,
  pgBinIn,
  pgLibIn,
  pgssControlIn,
  readJson,
} from "./layout.mjs";
import { log } from "./log.mjs";
import { checkMachine } from "./machine.mjs";
import { installWaitSampling } from "./extensions.mjs";
import { hostMirror, probeRelease } from "./mirror.mjs";
import { PROC_MOUNT, ensureMounts, removeTree, unmountAll } from "./mounts.mjs";
import { baseEnv, describe, inRoot, proxyEnv, run, tail } from "./processes.mjs";

/** Bootstrap, then install 18 (and `major` if another), then pg_wait_sampling for 18: each is skipped when its mark says it was done. */
export async function setup(major = DEFAULT_MAJOR) {
  checkMachine();
  await bootstrap();
  await install(DEFAULT_MAJOR);
  await installWaitSampling(DEFAULT_MAJOR);
  if (major !== DEFAULT_MAJOR) await install(major);
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
  throw new Unavailable(
    `the mirror ${mirror} gave no usable suite (${refusals.join("; ")}); fix: set IOURING_TESTS_MIRROR to a Debian mirror with ${SUITES.join("/")}`,
  );
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
      throw new Unavailable(
        `the ${suite} Release file is signed by a key this machine's debian-archive-keyring lacks; fix: install a newer debian-archive-keyring`,
      );
    }
    // The mirror refusing is the machine's limit (try the next suite); anything else is a real error.
    if (
      /Couldn't download|Failed getting release|Couldn't find these debs|Connection (refused|timed out)|Temporary failure|Network is unreachable|404/i.test(
        result.out,
      )
    ) {
      return false;
    }
    throw new Error(`debootstrap ${suite} failed (${describe(result)}); see ${logFile}`);
  }
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  await fs.writeFile(
    path.join(PARTIAL, BOOTSTRAP_MARK),
    `${JSON.stringify({ suite, mirror, seconds: Number(secs), at: new Date().toISOString() })}\n`,
  );
  await fs.rename(PARTIAL, SYSTEM);
  log(`debootstrap ${suite}: ${secs} s`);
  return true;
}

async function install(major) {
  const mark = readJson(path.join(SYSTEM, installMark(major)));
  if (mark) {
    log(`install postgresql-${major} ${mark.version}: cached (${mark.seconds} s)`);
    return mark;
  }
  await prepareApt(major);
  await ensureMounts([PROC_MOUNT]);
  try {
    return await installPackages(major);
  } finally {
    await unmountAll(path.join(SYSTEM, PROC_MOUNT.target));
  }
}

/**
 * 19 is in Debian experimental only: its two packages are pinned there by
 * name (`-t experimental` would take experimental's perl too, which
 * conflicts); everything else comes from the suite.
 */
function packagesOf(major) {
  return major === DEFAULT_MAJOR
    ? [`postgresql-${major}`]
    : [`postgresql-${major}/experimental`, `postgresql-client-${major}/experimental`];
}

async function installPackages(major) {
  const logFile = path.join(LOGS, major === DEFAULT_MAJOR ? "install.log" : `install-${major}.log`);
  const name = `postgresql-${major}`;
  const started = performance.now();
  const suite = readJson(path.join(SYSTEM, BOOTSTRAP_MARK)).suite;
  // A run killed during dpkg leaves packages unpacked but not configured.
  await inRoot(["dpkg", "--configure", "-a"], { logFile, timeoutMs: 10 * 60_000 });
  const update = await inRoot(["apt-get", "update"], { logFile, timeoutMs: 10 * 60_000, env: proxyEnv() });
  if (update.code !== 0 || /^(E:|Err:)/m.test(update.out)) {
    throw new Unavailable(
      `apt-get update inside the ${suite} chroot failed (${tail(update.out, 2)}); fix: make the mirror reachable, see ${logFile}`,
    );
  }
  const policy = await inRoot(["apt-cache", "policy", name]);
  const candidate = major === DEFAULT_MAJOR ? /Candidate:\s*(\S+)/.exec(policy.out)?.[1] : experimentalVersion(policy.out);
  if (!candidate || candidate === "(none)") {
    throw new Unavailable(
      major === DEFAULT_MAJOR
        ? `suite ${suite} has no ${name} package; fix: IOURING_TESTS_SUITES="<a suite with it>" and remove ${SYSTEM}`
        : `the mirror's experimental suite has no ${name} package (apt-cache policy: ${tail(policy.out, 1)}); fix: set IOURING_TESTS_MIRROR to a Debian mirror that carries experimental`,
    );
  }
  // postgresql-common needs "systemd | systemd-standalone-tmpfiles": apt picks the first, all of systemd (~150 MB) for one tool.
  const tmpfiles = /Candidate:\s*[0-9]/.test((await inRoot(["apt-cache", "policy", "systemd-standalone-tmpfiles"])).out);
  const packages = [...packagesOf(major), ...(tmpfiles ? ["systemd-standalone-tmpfiles"] : [])];
  const apt = await inRoot(["apt-get", "install", "-y", ...packages], { logFile, timeoutMs: 15 * 60_000, env: proxyEnv() });
  if (apt.code !== 0) {
    if (/Failed to fetch|Could not (connect|resolve)|Temporary failure resolving/i.test(apt.out)) {
      throw new Unavailable(`apt-get could not download ${name} (${tail(apt.out, 1)}); fix: make the mirror reachable`);
    }
    throw new Error(`apt-get install ${packages.join(" ")} failed (${describe(apt)}); see ${logFile}`);
  }
  const download = /Need to get ([\d.,]+ [kMG]B)/.exec(apt.out)?.[1] ?? "?";
  const disk = /After this operation, ([\d.,]+ [kMG]B) of additional disk space/.exec(apt.out)?.[1] ?? "?";
  // The downloaded .debs (debootstrap's and ours) and the package lists are not needed again: ~270 MB.
  await inRoot(["apt-get", "clean"]);
  await fs.rm(path.join(SYSTEM, "var/lib/apt/lists"), { recursive: true, force: true });
  await fs.mkdir(path.join(SYSTEM, "var/lib/apt/lists/partial"), { recursive: true });
  const liburing = await linkedLiburing(major);
  const pgss =
    existsSync(path.join(SYSTEM, pgssControlIn(major))) && existsSync(path.join(SYSTEM, pgLibIn(major), "pg_stat_statements.so"));
  const secs = Number(((performance.now() - started) / 1000).toFixed(1));
  const record = {
    suite,
    major,
    version: candidate,
    liburing,
    pgStatStatements: pgss,
    download,
    disk,
    seconds: secs,
    at: new Date().toISOString(),
  };
  await fs.writeFile(path.join(SYSTEM, installMark(major)), `${JSON.stringify(record)}\n`);
  log(
    `install ${name} ${candidate}: ${secs} s (${download} downloaded, ${disk} unpacked, ${liburing}, pg_stat_statements ${pgss ? "shipped" : "missing"})`,
  );
  return record;
}

/** experimental's version in `apt-cache policy` (its candidate is the suite's, or none: experimental is pinned low). */
function experimentalVersion(policy) {
  const lines = policy.split("\n");
  const at = lines.findIndex((l) => / experimental\//.test(l));
  for (let i = at - 1; at > 0 && i >= 0; i--) {
    const m = /^\s*(?:\*\*\*\s*)?(\d\S*)\s+\d+\s*$/.exec(lines[i]);
    if (m) return m[1];
  }
  return null;
}

/** Inside the chroot only: the mirror's Release file may be past its Valid-Until by this machine's clock. */
async function prepareApt(major) {
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
  if (major !== DEFAULT_MAJOR) await addExperimental();
}

/** debootstrap wrote one "deb <mirror> <suite> main" line: the same mirror's experimental beside it. */
async function addExperimental() {
  const file = path.join(SYSTEM, "etc/apt/sources.list");
  const text = await fs.readFile(file, "utf8");
  if (/ experimental /.test(text)) return;
  const line = text.split("\n").find((l) => /^deb\s/.test(l));
  if (!line) throw new Error(`${file} has no deb line to add experimental beside`);
  const [, url] = line.split(/\s+/);
  await fs.appendFile(file, `deb ${url} experimental main\n`);
}

async function linkedLiburing(major) {
  const ldd = await inRoot(["ldd", `${pgBinIn(major)}/postgres`]);
  const line = ldd.out.split("\n").find((l) => l.includes("liburing"));
  if (!line)
    throw new Unavailable(
      `Debian's postgresql-${major} here is not linked against liburing (ldd: ${tail(ldd.out, 1)}); fix: pick another suite with IOURING_TESTS_SUITES`,
    );
  return line.trim().split(/\s+/)[0];
}
