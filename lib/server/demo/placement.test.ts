import { describe, expect, test } from "vitest";

import { renderConf } from "./cluster";
import { modeAllows, selfAndAncestors } from "./placement";

const postgres = { uid: 101, gid: 104 };

describe("modeAllows", () => {
  test("a 0700 folder owned by root blocks the postgres user", () => {
    expect(modeAllows({ mode: 0o40700, uid: 0, gid: 0 }, postgres, "x")).toBe(false);
  });

  test("other's x bit is enough to pass through", () => {
    expect(modeAllows({ mode: 0o40711, uid: 0, gid: 0 }, postgres, "x")).toBe(true);
    expect(modeAllows({ mode: 0o40711, uid: 0, gid: 0 }, postgres, "rx")).toBe(false);
  });

  test("only one class applies: an owner without x is blocked even if others have it", () => {
    expect(modeAllows({ mode: 0o40075, uid: 101, gid: 0 }, postgres, "x")).toBe(false);
    expect(modeAllows({ mode: 0o40750, uid: 0, gid: 104 }, postgres, "rx")).toBe(true);
  });
});

test("selfAndAncestors walks up to /", () => {
  expect(selfAndAncestors("/root/work/app")).toEqual(["/root/work/app", "/root/work", "/root", "/"]);
});

describe("renderConf", () => {
  test("quotes every value and escapes quotes", () => {
    expect(renderConf({ io_method: "worker", unix_socket_directories: "", application_name: "it's" })).toBe(
      "# Written by inflight at every start. ALTER SYSTEM (postgresql.auto.conf) overrides these.\n" +
        "io_method = 'worker'\nunix_socket_directories = ''\napplication_name = 'it''s'\n",
    );
  });

  test("rejects names and values that could inject lines", () => {
    expect(() => renderConf({ "a\nb": "1" })).toThrow(/invalid PostgreSQL setting name/);
    expect(() => renderConf({ work_mem: "1MB\nfsync = off" })).toThrow(/must be one line/);
  });
});
