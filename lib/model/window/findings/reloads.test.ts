import { describe, expect, it } from "vitest";
import { target, tick } from "../../../../test/support/fixtures";
import { formatClock } from "../../../format";
import type { Reload, Restart, Settings } from "../../../schemas/settings";
import { toSettings } from "../settings";
import { computeFindings, type FindingsInput } from "./index";

const NOW = 1_000_000;
const START = NOW - 600_000;
const row = (name: string, setting: string) => ({
  name,
  setting,
  unit: null,
  source: "configuration file",
  pending_restart: false,
  enumvals: null,
  vartype: "string",
});
const settingsOf = (workers: string): Settings =>
  toSettings([row("io_method", "worker"), row("io_workers", workers), row("effective_io_concurrency", "16")]);
const recent = (alive: number) =>
  Array.from({ length: 10 }, (_, i) => tick(i + 1, NOW - 1000 + i * 100, { workers: { alive, busy: 0, configured: alive } }));

/** The case: a restart to io_method worker, then io_workers 3 -> 1 by ALTER SYSTEM and a reload. */
const restart: Restart = { at: START, seenAt: START + 500, changes: [{ name: "io_method", before: "sync", after: "worker" }] };
const reload: Reload = { at: START + 120_000, seenAt: START + 120_050, changes: [{ name: "io_workers", before: "3", after: "1" }] };

function input(over: Partial<FindingsInput> = {}): FindingsInput {
  return {
    now: NOW,
    target: target({ postmasterStart: START }),
    settings: settingsOf("1"),
    restarts: [restart],
    reloads: [reload],
    statements: [],
    runs: [],
    recent: recent(1),
    ...over,
  };
}
const find = (i: FindingsInput, rule: string) => computeFindings(i).findings.filter((f) => f.rule === rule);

describe("reload_applied: a reload is a reload", () => {
  it("names the setting, before -> after, and the reload's time (pg_conf_load_time()), with the workers alive since", () => {
    const [f] = find(input(), "reload_applied");
    expect(f).toMatchObject({
      id: `reload_applied:${reload.at}`,
      severity: "info",
      text: `io_workers 3 -> 1 by a reload at ${formatClock(reload.at)}; 1 io worker alive since.`,
    });
    // at a glance: a reload, its moment, what it changed
    expect(f.glance).toEqual({ now: `Reloaded ${formatClock(reload.at)}: io_workers 3→1`, lever: null });
  });

  it("the restart finding names only the restart's change and does not count the reload's workers as its own", () => {
    const [f] = find(input(), "restart_applied");
    expect(f.text).toBe(
      `Server started ${formatClock(START)}: that restart changed io_method sync -> worker, in force (reads handed to io workers); none waits for a restart; since then, a reload at ${formatClock(reload.at)} changed io_workers.`,
    );
    expect(f.text).not.toMatch(/io workers alive/);
  });

  it("without a reload the restart finding counts the workers alive as before", () => {
    const [f] = find(input({ reloads: [], settings: settingsOf("3"), recent: recent(3) }), "restart_applied");
    expect(f.text).toContain("in force (3 io workers alive; reads handed to io workers)");
    expect(find(input({ reloads: [] }), "reload_applied")).toEqual([]);
  });

  it("a restart that changed io_workers, changed again by a reload since, is not said to have failed", () => {
    const r: Restart = { ...restart, changes: [{ name: "io_workers", before: "3", after: "5" }] };
    const [f] = find(
      input({ restarts: [r], reloads: [{ ...reload, changes: [{ name: "io_workers", before: "5", after: "1" }] }] }),
      "restart_applied",
    );
    expect(f.severity).toBe("info");
    expect(f.text).toMatch(
      /that restart changed io_workers 3 -> 5, in force .*since then, a reload at \d\d:\d\d:\d\d changed io_workers\.$/,
    );
  });

  it("a reload of an earlier server start, or of no I/O setting, is not named", () => {
    const before: Reload = { ...reload, at: START - 1000 };
    const other: Reload = { ...reload, changes: [{ name: "work_mem", before: "4 MB", after: "8 MB" }] };
    expect(find(input({ reloads: [before, other] }), "reload_applied")).toEqual([]);
    expect(find(input({ reloads: [before, other] }), "restart_applied")[0].text).not.toMatch(/reload/);
  });

  it("several reloads: one finding each, the newest first; only the newest that resized the workers counts them", () => {
    const later: Reload = {
      at: reload.at + 60_000,
      seenAt: reload.seenAt + 60_000,
      changes: [{ name: "effective_io_concurrency", before: "16", after: "64" }],
    };
    const fs = find(input({ reloads: [reload, later] }), "reload_applied");
    expect(fs.map((f) => f.text)).toEqual([
      `effective_io_concurrency 16 -> 64 by a reload at ${formatClock(later.at)}.`,
      `io_workers 3 -> 1 by a reload at ${formatClock(reload.at)}; 1 io worker alive since.`,
    ]);
    expect(find(input({ reloads: [reload, later] }), "restart_applied")[0].text).toContain(
      `since then, 2 reloads (the last at ${formatClock(later.at)}) changed io_workers, effective_io_concurrency.`,
    );
  });

  it("the unchanged-restart finding says a reload changed what is in force since", () => {
    const [f] = find(input({ restarts: [] }), "settings_unchanged");
    expect(f.text).toMatch(
      /what that start changed is not known; none waits for a restart; since then, a reload at \d\d:\d\d:\d\d changed io_workers\. io_method worker, io_workers 1\.$/,
    );
  });
});
