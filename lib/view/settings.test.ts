import { describe, expect, it } from "vitest";
import type { Setting, Settings } from "@/lib/schemas/settings";
import { target } from "../../test/support/fixtures";
import { blockSizeOf } from "@/lib/model/window/settings";
import { banners, orderChecks, settingRows } from "./settings";

const setting = (value: string, pendingRestart = false): Setting => ({
  setting: value,
  unit: null,
  source: "default",
  pendingRestart,
  display: value,
  enumvals: null,
});

describe("settingRows", () => {
  it("puts the settings in the server's reading order, any other by name", () => {
    const rows = settingRows({
      zz: setting("1"),
      block_size: setting("8192"),
      aa: setting("1"),
      io_workers: setting("3"),
      io_method: setting("worker", true),
      data_checksums: setting("on"),
    });
    expect(rows.map((r) => r.name)).toEqual(["io_method", "io_workers", "data_checksums", "block_size", "aa", "zz"]);
  });
});

describe("setting notes", () => {
  it.each([
    ["sync", "unused: io_method = sync runs no io workers"],
    ["io_uring", "unused: io_method = io_uring runs no io workers"],
    ["worker", null],
  ])("io_workers under io_method = %s", (method, note) => {
    const rows = settingRows({ io_method: setting(method), io_workers: setting("3") });
    expect(rows.find((r) => r.name === "io_workers")?.note).toBe(note);
  });
  it("calls effective_io_concurrency a limit", () => {
    expect(settingRows({ effective_io_concurrency: setting("16") })[0].note).toBe("a limit, not a count");
  });
});

describe("blockSizeOf", () => {
  it("reads block_size, 8 kB when unknown", () => {
    expect(blockSizeOf({ block_size: setting("16384") })).toBe(16384);
    expect(blockSizeOf({})).toBe(8192);
  });
});

describe("orderChecks", () => {
  it("shows failures and warnings first", () => {
    const c = (id: string, status: "pass" | "note" | "fail" | "unknown" | "info") => ({ id, status, title: id, message: "" });
    expect(
      orderChecks([c("a", "pass"), c("b", "note"), c("c", "unknown"), c("d", "fail"), c("e", "note"), c("f", "info")]).map((x) => x.id),
    ).toEqual(["d", "b", "e", "c", "f", "a"]);
  });
});

describe("banners", () => {
  const caps = target().capabilities!;
  it.each<{ name: string; t: ReturnType<typeof target>; settings: Settings; ids: string[]; title?: string; code?: string }>([
    { name: "PostgreSQL 18 with pg_monitor: none", t: target(), settings: { track_io_timing: setting("on") }, ids: [] },
    {
      name: "PostgreSQL 16: no pg_aios",
      t: target({ serverVersion: "16.4", serverVersionNum: 160004, capabilities: { ...caps, aios: false } }),
      settings: {},
      ids: ["no-aios"],
      title: "PostgreSQL 16 has no asynchronous I/O; it came in 18",
    },
    {
      name: "no pg_monitor",
      t: target({ capabilities: { ...caps, aiosDenied: true, readAllStats: false } }),
      settings: {},
      ids: ["privileges"],
      code: "GRANT pg_monitor TO inflight;",
    },
    {
      name: "no pg_monitor, a role that needs quotes",
      t: target({ capabilities: { ...caps, readAllStats: false, role: 'Mon "x"' } }),
      settings: {},
      ids: ["privileges"],
      code: 'GRANT pg_monitor TO "Mon ""x""";',
    },
    { name: "track_io_timing off", t: target(), settings: { track_io_timing: setting("off") }, ids: ["track_io_timing"] },
    // Said once, by the findings and the header, with its error.
    { name: "down: no banner of its own", t: target({ status: "down", lastError: "connection refused" }), settings: {}, ids: [] },
  ])("$name", ({ t, settings, ids, title, code }) => {
    const list = banners(t, settings);
    expect(list.map((b) => b.id)).toEqual(ids);
    if (title) expect(list[0].title).toBe(title);
    if (code) expect(list[0].code).toBe(code);
  });

  it("names what the role cannot read", () => {
    const [b] = banners(target({ capabilities: { ...caps, aiosDenied: true } }), {});
    expect(b.title).toBe("This role cannot read pg_aios (reads in flight)");
  });
});
