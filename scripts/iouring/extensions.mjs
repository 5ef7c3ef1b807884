// Extensions the tests load beside PostgreSQL: Debian's pg_wait_sampling
// build for each major installed, marked apart from the server's install so
// a folder made before it gains it on its next setup (and a fresh one builds
// it with the rest).
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { Unavailable } from "./errors.mjs";
import { LOGS, SYSTEM, extensionMark, pgLibIn, readJson } from "./layout.mjs";
import { log } from "./log.mjs";
import { PROC_MOUNT, ensureMounts, unmountAll } from "./mounts.mjs";
import { describe, inRoot, proxyEnv, tail } from "./processes.mjs";

/** Debian's package of pg_wait_sampling for `major`: its suite's, else experimental's (pinned by name). */
export async function installWaitSampling(major) {
  const mark = readJson(path.join(SYSTEM, extensionMark(major, "pg_wait_sampling")));
  if (mark) {
    log(`install ${mark.package} ${mark.version}: cached (${mark.seconds} s)`);
    return mark;
  }
  await ensureMounts([PROC_MOUNT]);
  try {
    return await installPackage(major);
  } finally {
    await unmountAll(path.join(SYSTEM, PROC_MOUNT.target));
  }
}

async function installPackage(major) {
  const name = `postgresql-${major}-pg-wait-sampling`;
  const logFile = path.join(LOGS, `install-${name}.log`);
  const started = performance.now();
  const update = await inRoot(["apt-get", "update"], { logFile, timeoutMs: 10 * 60_000, env: proxyEnv() });
  if (update.code !== 0 || /^(E:|Err:)/m.test(update.out))
    throw new Unavailable(`apt-get update inside the chroot failed (${tail(update.out, 2)}); see ${logFile}`);
  const policy = (await inRoot(["apt-cache", "policy", name])).out;
  await fs.appendFile(logFile, policy);
  const candidate = /Candidate:\s*(\S+)/.exec(policy)?.[1];
  // experimental is pinned low: its version shows in the table, never as the candidate.
  const experimental = / experimental\//.test(policy) ? /^\s*(?:\*\*\*\s*)?(\d\S*)\s+\d+\s*$/m.exec(policy)?.[1] : undefined;
  const from =
    candidate && candidate !== "(none)"
      ? { spec: name, version: candidate }
      : experimental
        ? { spec: `${name}/experimental`, version: experimental }
        : null;
  if (!from)
    throw new Unavailable(
      `the mirror has no ${name} (apt-cache policy: ${tail(policy, 2)}); fix: a mirror with Debian sid or experimental`,
    );
  const apt = await inRoot(["apt-get", "install", "-y", from.spec], { logFile, timeoutMs: 15 * 60_000, env: proxyEnv() });
  if (apt.code !== 0) throw new Error(`apt-get install ${from.spec} failed (${describe(apt)}); see ${logFile}`);
  await inRoot(["apt-get", "clean"]);
  await fs.rm(path.join(SYSTEM, "var/lib/apt/lists"), { recursive: true, force: true });
  await fs.mkdir(path.join(SYSTEM, "var/lib/apt/lists/partial"), { recursive: true });
  if (!existsSync(path.join(SYSTEM, pgLibIn(major), "pg_wait_sampling.so")))
    throw new Error(`${name} installed no pg_wait_sampling.so under ${pgLibIn(major)}`);
  const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
  const record = { package: name, major, version: from.version, from: from.spec, seconds, at: new Date().toISOString() };
  await fs.writeFile(path.join(SYSTEM, extensionMark(major, "pg_wait_sampling")), `${JSON.stringify(record)}\n`);
  log(`install ${name} ${from.version}: ${seconds} s`);
  return record;
}
