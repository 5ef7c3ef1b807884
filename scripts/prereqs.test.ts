// The pure parts of scripts/prereqs.mjs: which needs a run has
// (prereq-needs.mjs), what is absent on a given machine, the plan (install,
// make a user, or tell), and the lines it prints. No apt-get runs here: the
// machine is a fake.
import { describe, expect, it } from "vitest";
// @ts-expect-error plain ESM without types
import * as needs from "./prereq-needs.mjs";
// @ts-expect-error plain ESM without types
import * as prereqs from "./prereqs.mjs";

const { benchNeeds, chromiumNeed, testNeeds } = needs;
const { absentParts, ensurePrereqs, findMissing, installLine, machine, manualLine, plan } = prereqs;

type Need = {
  name: string;
  why: string;
  files?: string[];
  commands?: string[];
  user?: string;
  platform?: string;
  apt?: string | null;
  hint?: string;
};

/** A machine with exactly these files, commands and users. */
function fake({
  files = [],
  commands = [],
  users = [],
  isRoot = true,
  hasApt = true,
  platform = "linux",
}: {
  files?: string[];
  commands?: string[];
  users?: string[];
  isRoot?: boolean;
  hasApt?: boolean;
  platform?: string;
}) {
  return {
    pretends: () => false,
    isExecutable: (f: string) => files.includes(f),
    onPath: (c: string) => commands.includes(c),
    userExists: (u: string) => users.includes(u),
    platform,
    isRoot,
    hasApt,
  };
}

const ALL_TEST_FILES = [
  "/usr/bin/chromium",
  "/usr/bin/prometheus",
  "/usr/bin/promtool",
  "/usr/lib/postgresql/15/bin/postgres",
  "/usr/lib/postgresql/15/bin/initdb",
  "/usr/lib/postgresql/15/bin/pg_ctl",
];

describe("testNeeds", () => {
  it("lists chromium, prometheus, PostgreSQL 15, debootstrap, dd and, as root, the postgres user", () => {
    expect(testNeeds({}, 0).map((n: Need) => n.name)).toEqual([
      "chromium",
      "prometheus",
      "postgresql-15",
      "debootstrap",
      "dd",
      "postgres-user",
    ]);
    expect(testNeeds({}, 1000).map((n: Need) => n.name)).not.toContain("postgres-user");
  });

  it("needs no chromium with PLAYWRIGHT_CHROMIUM=bundled", () => {
    expect(testNeeds({ PLAYWRIGHT_CHROMIUM: "bundled" }, 0).map((n: Need) => n.name)).not.toContain("chromium");
  });

  it("checks prometheus and promtool beside PROMETHEUS_BIN, which apt cannot put there", () => {
    const prom = testNeeds({ PROMETHEUS_BIN: "/opt/prom/prometheus" }, 0).find((n: Need) => n.name === "prometheus");
    expect(prom.files).toEqual(["/opt/prom/prometheus", "/opt/prom/promtool"]);
    expect(prom.apt).toBeNull();
  });
});

describe("chromiumNeed", () => {
  it("Debian's chromium by default, installable", () => {
    expect(chromiumNeed({}, "browser tests")).toMatchObject({ files: ["/usr/bin/chromium"], apt: "chromium" });
  });
  it("CHROMIUM_PATH elsewhere: checked there, no package puts it there", () => {
    expect(chromiumNeed({ CHROMIUM_PATH: "/opt/c/chrome" }, "browser tests")).toMatchObject({ files: ["/opt/c/chrome"], apt: null });
  });
});

describe("benchNeeds", () => {
  it("has its own list: pgbench, pg_activity, chromium, script, dd, getconf, Linux", () => {
    expect(benchNeeds({}, 1000).map((n: Need) => n.name)).toEqual([
      "pgbench",
      "pg_activity",
      "chromium",
      "script",
      "dd",
      "getconf",
      "linux",
    ]);
  });
});

describe("absentParts / findMissing", () => {
  it("names each absent file, command, user and platform", () => {
    const m = fake({ files: ["/usr/bin/prometheus"], platform: "darwin" });
    expect(absentParts({ name: "p", why: "", files: ["/usr/bin/prometheus", "/usr/bin/promtool"] }, m)).toEqual(["/usr/bin/promtool"]);
    expect(absentParts({ name: "d", why: "", commands: ["debootstrap"] }, m)).toEqual(["debootstrap"]);
    expect(absentParts({ name: "u", why: "", user: "postgres" }, m)).toEqual(["user postgres"]);
    expect(absentParts({ name: "l", why: "", platform: "linux" }, m)).toEqual(["platform linux"]);
  });

  it("finds nothing missing on a machine that has it all", () => {
    const m = fake({ files: ALL_TEST_FILES, commands: ["debootstrap", "dd"], users: ["postgres"] });
    expect(findMissing(testNeeds({}, 0), m)).toEqual([]);
  });

  it("PREREQS_PRETEND_MISSING makes the named needs absent whatever the disk says", () => {
    const m = machine({ PREREQS_PRETEND_MISSING: "dd", PATH: process.env.PATH });
    const dd = { name: "dd", why: "", commands: ["dd"], apt: "coreutils" };
    expect(absentParts(dd, m)).toEqual(["dd"]);
    expect(absentParts({ ...dd, name: "other" }, m)).toEqual([]);
  });
});

describe("plan", () => {
  const missing = findMissing(testNeeds({}, 0), fake({ files: ["/usr/bin/chromium"], commands: ["dd"] }));

  it("as root with apt-get: Debian packages once each, and the user to make", () => {
    const p = plan(missing, { isRoot: true, hasApt: true });
    expect(p.packages.map((x: { name: string }) => x.name)).toEqual(["prometheus", "postgresql-15", "debootstrap"]);
    expect(p.users).toEqual(["postgres"]);
    expect(p.manual).toEqual([]);
  });

  it("not root, or no apt-get: everything is for a person", () => {
    expect(plan(missing, { isRoot: false, hasApt: true }).manual).toHaveLength(4);
    const noApt = plan(missing, { isRoot: true, hasApt: false });
    expect(noApt.packages).toEqual([]);
    expect(noApt.users).toEqual(["postgres"]);
    expect(noApt.manual.map((x: { need: Need }) => x.need.name)).toEqual(["prometheus", "postgresql-15", "debootstrap"]);
  });

  it("one package needed twice is installed once, with both reasons", () => {
    const needs = [
      { name: "a", why: "first", commands: ["a"], apt: "pkg" },
      { name: "b", why: "second", commands: ["b"], apt: "pkg" },
    ];
    expect(plan(findMissing(needs, fake({})), { isRoot: true, hasApt: true }).packages).toEqual([{ name: "pkg", why: "first, second" }]);
  });

  it("a need no package provides is for a person even as root", () => {
    const p = plan(findMissing([chromiumNeed({ CHROMIUM_PATH: "/nonexistent/chromium" }, "browser tests")], fake({})), {
      isRoot: true,
      hasApt: true,
    });
    expect(p.packages).toEqual([]);
    expect(p.manual).toHaveLength(1);
  });
});

describe("the lines", () => {
  it("one install line saying what and why", () => {
    const missing = findMissing(testNeeds({}, 0), fake({ commands: ["dd"], users: ["postgres"] }));
    expect(installLine("[inflight test]", plan(missing, { isRoot: true, hasApt: true }).packages)).toBe(
      "[inflight test] installing Debian's chromium (browser tests), prometheus (scrape test), postgresql-15 (a server without async I/O), debootstrap (a liburing PostgreSQL 18 for the io_uring tests)",
    );
  });

  it("a missing piece with the command that installs it (sudo when not root)", () => {
    const [item] = findMissing([{ name: "debootstrap", why: "io_uring tests", commands: ["debootstrap"], apt: "debootstrap" }], fake({}));
    expect(manualLine("[t]", item, { isRoot: false })).toBe(
      "[t] missing debootstrap (io_uring tests): sudo apt-get install -y debootstrap",
    );
    expect(manualLine("[t]", item, { isRoot: true })).toBe("[t] missing debootstrap (io_uring tests): apt-get install -y debootstrap");
    const [chromium] = findMissing([chromiumNeed({}, "browser tests")], fake({}));
    expect(manualLine("[t]", chromium, { isRoot: false })).toBe(
      "[t] missing /usr/bin/chromium (browser tests): sudo apt-get install -y chromium (or set CHROMIUM_PATH to a Chromium, or PLAYWRIGHT_CHROMIUM=bundled for Playwright's own)",
    );
    const [user] = findMissing([{ name: "postgres-user", why: "w", user: "postgres" }], fake({}));
    expect(manualLine("[t]", user, { isRoot: true })).toMatch(
      /^\[t\] missing user postgres \(w\): groupadd --system postgres && useradd --system -g postgres /,
    );
  });
});

describe("ensurePrereqs", () => {
  function run(m: ReturnType<typeof fake>, dryRun = false) {
    const out: string[] = [];
    const err: string[] = [];
    const ok = ensurePrereqs(testNeeds({}, m.isRoot ? 0 : 1000), {
      label: "[t]",
      dryRun,
      m,
      log: (l: string) => out.push(l),
      error: (l: string) => err.push(l),
    });
    return { ok, out, err };
  }

  it("says nothing and passes when all is there", () => {
    expect(run(fake({ files: ALL_TEST_FILES, commands: ["debootstrap", "dd"], users: ["postgres"] }))).toEqual({
      ok: true,
      out: [],
      err: [],
    });
  });

  it("not root: one line per missing piece on stderr, and fails; nothing is installed", () => {
    const r = run(fake({ isRoot: false, files: ["/usr/bin/chromium"], commands: ["dd"] }));
    expect(r.ok).toBe(false);
    expect(r.out).toEqual([]);
    expect(r.err).toEqual([
      "[t] missing /usr/bin/prometheus, /usr/bin/promtool (scrape test): sudo apt-get install -y prometheus",
      "[t] missing /usr/lib/postgresql/15/bin/postgres, /usr/lib/postgresql/15/bin/initdb, /usr/lib/postgresql/15/bin/pg_ctl (a server without async I/O): sudo apt-get install -y postgresql-15",
      "[t] missing debootstrap (a liburing PostgreSQL 18 for the io_uring tests): sudo apt-get install -y debootstrap",
    ]);
  });

  it("--dry-run as root: what it would install and make, changing nothing", () => {
    const r = run(fake({ files: ["/usr/bin/chromium"], commands: ["dd", "debootstrap"] }), true);
    expect(r.ok).toBe(true);
    expect(r.out).toEqual([
      "[t] would install Debian's prometheus (scrape test), postgresql-15 (a server without async I/O): apt-get update -qq && apt-get install -y -qq prometheus postgresql-15",
      "[t] would create the OS user postgres: groupadd --system postgres && useradd --system -g postgres -M -d /nonexistent -s /usr/sbin/nologin postgres",
    ]);
  });
});
