import { describe, expect, it } from "vitest";
import { computeChecks } from "./checks";
import { FLAG_OUTLIVES, pendingGlance, pendingText, withPendingValues } from "./pending";
import { toSettings } from "./settings";

const row = (name: string, setting: string, pending = false, enumvals: string[] | null = null) => ({
  name,
  setting,
  unit: null,
  source: "configuration file",
  pending_restart: pending,
  enumvals,
  vartype: enumvals ? "enum" : "integer",
});
const TWO = ["sync", "worker"];
const THREE = ["sync", "worker", "io_uring"];

describe("pendingText", () => {
  it("is null when nothing waits for a restart", () => {
    expect(pendingText(toSettings([row("io_method", "worker", false, TWO)]))).toBeNull();
  });

  it("names the value pg_file_settings holds, and what io_method sync will do to a running scan", () => {
    const s = withPendingValues(toSettings([row("io_method", "worker", true, THREE)]), [
      { name: "io_method", file_setting: "sync", boot_val: "worker" },
    ]);
    expect(pendingText(s)).toBe(
      `Waiting for a restart: io_method worker in force; the next restart brings sync (pg_file_settings): reads will be synchronous: a running scan's reads will wait one by one. ${FLAG_OUTLIVES}`,
    );
  });

  it("infers the value when the build offers only one other, without pg_file_settings", () => {
    const s = withPendingValues(toSettings([row("io_method", "worker", true, TWO)]), null);
    expect(pendingText(s)).toMatch(
      /io_method worker in force; the next restart brings sync \(the only other value this build offers \(sync, worker\)\): reads will be synchronous: a running scan's reads will wait one by one; unless the change was undone since \(pg_file_settings would tell; this role cannot read it\)\./,
    );
    const back = withPendingValues(toSettings([row("io_method", "sync", true, TWO)]), null);
    expect(pendingText(back)).toMatch(/the next restart brings worker .*: reads handed to io workers/);
  });

  it("says the value is unknown when it cannot be read nor inferred", () => {
    const s = withPendingValues(toSettings([row("io_method", "worker", true, THREE), row("io_max_concurrency", "64", true)]), null);
    expect(pendingText(s)).toMatch(
      /io_method worker in force; the value the next restart brings is in pg_file_settings, which this role cannot read.*; io_max_concurrency 64 in force; the value/,
    );
  });

  it("says a change was undone when the files hold the value in force again (no line: the built-in default)", () => {
    const s = withPendingValues(toSettings([row("io_method", "worker", true, TWO)]), [
      { name: "io_method", file_setting: null, boot_val: "worker" },
    ]);
    expect(pendingText(s)).toMatch(
      /io_method worker in force, and the next restart brings worker again \(the built-in default: no configuration file sets it now\): the change was undone, the restart changes nothing\. PostgreSQL keeps pending_restart set after a change is undone/,
    );
    const file = withPendingValues(toSettings([row("io_workers", "3", true)]), [{ name: "io_workers", file_setting: "3", boot_val: "3" }]);
    expect(pendingText(file)).toMatch(
      /io_workers 3 in force, and the next restart brings 3 again \(pg_file_settings\): the change was undone/,
    );
  });

  it("is the pending_restart check's message too", () => {
    const s = withPendingValues(toSettings([row("io_method", "worker", true, TWO)]), null);
    const check = computeChecks({ settings: s, capabilities: null, lastTick: undefined, asyncSeen: false, readsSeen: false }).find(
      (c) => c.id === "pending_restart",
    );
    expect(check).toMatchObject({ status: "note", message: pendingText(s) });
  });
});

describe("pendingGlance", () => {
  const methods = ["sync", "worker"];
  it.each([
    ["the only other value of the enum", toSettings([row("io_method", "worker", true, methods)]), "io_method sync"],
    [
      "from pg_file_settings",
      withPendingValues(toSettings([row("io_workers", "3", true)]), [{ name: "io_workers", file_setting: "1", boot_val: "3" }] as never),
      "io_workers 1",
    ],
    [
      "undone: the file brings the value in force again",
      withPendingValues(toSettings([row("io_workers", "3", true)]), [{ name: "io_workers", file_setting: null, boot_val: "3" }] as never),
      "io_workers (undone)",
    ],
    ["not knowable", toSettings([row("io_workers", "3", true)]), "io_workers ?"],
  ])("%s", (_, settings, want) => {
    const [name, s] = Object.entries(settings)[0];
    expect(pendingGlance(name, s)).toBe(want);
  });
});
