import { describe, expect, it } from "vitest";
import { configuredWorkers, diffSettings, formatSetting, reloadChanges, toSettings } from "./settings";

describe("formatSetting", () => {
  it.each([
    ["16", "8kB", "128 kB"],
    ["32", "8kB", "256 kB"],
    ["4096", "8kB", "32 MB"],
    ["131072", "8kB", "1 GB"],
    ["64", null, "64"],
    ["worker", null, "worker"],
    ["60000", "ms", "1 min"],
    ["1500", "ms", "1500 ms"],
    ["10", "s", "10 s"],
    ["3", "8kB", "24 kB"],
  ])("%s %s -> %s", (setting, unit, want) => {
    expect(formatSetting(setting, unit)).toBe(want);
  });
});

const row = (name: string, setting: string, unit: string | null = null) => ({
  name,
  setting,
  unit,
  source: "default",
  pending_restart: false,
  enumvals: null,
  vartype: "string",
});

describe("diffSettings", () => {
  it("lists every changed setting in display units", () => {
    const before = toSettings([row("io_method", "worker"), row("io_combine_limit", "16", "8kB"), row("io_workers", "3")]);
    const after = toSettings([row("io_method", "sync"), row("io_combine_limit", "32", "8kB"), row("io_workers", "3")]);
    expect(diffSettings(before, after)).toEqual([
      { name: "io_combine_limit", before: "128 kB", after: "256 kB" },
      { name: "io_method", before: "worker", after: "sync" },
    ]);
  });
});

describe("toSettings", () => {
  it("gives block_size its unit (pg_settings has none for it)", () => {
    expect(toSettings([row("block_size", "8192")]).block_size.display).toBe("8 kB");
    expect(toSettings([row("io_workers", "3")]).io_workers.display).toBe("3");
  });
});

describe("configuredWorkers", () => {
  it.each([
    [[row("io_method", "worker"), row("io_workers", "5")], 5],
    [[row("io_method", "sync"), row("io_workers", "5")], 0],
    [[], null],
  ])("%#", (rows, want) => {
    expect(configuredWorkers(toSettings(rows))).toBe(want);
  });
});

describe("reloadChanges", () => {
  const row = (name: string, setting: string, source = "configuration file", pending = false) => ({
    name,
    setting,
    unit: null,
    source,
    pending_restart: pending,
    enumvals: null,
    vartype: "string",
  });

  it("is what changed in force: not a setting left pending, not one set for the role or database", () => {
    const before = toSettings([
      row("io_method", "worker"),
      row("io_workers", "3"),
      row("effective_io_concurrency", "16", "default"),
      row("maintenance_io_concurrency", "16", "default"),
    ]);
    const after = toSettings([
      row("io_method", "worker", "configuration file", true),
      row("io_workers", "1"),
      row("effective_io_concurrency", "32", "user"),
      row("maintenance_io_concurrency", "32"),
    ]);
    expect(reloadChanges(before, after)).toEqual([
      { name: "io_workers", before: "3", after: "1" },
      { name: "maintenance_io_concurrency", before: "16", after: "32" },
    ]);
  });
});
