import { describe, expect, it } from "vitest";
import { safeNext } from "./auth";

describe("safeNext", () => {
  it.each([
    ["/targets/demo?view=5m", "/targets/demo?view=5m"],
    ["/", "/"],
    [null, "/"],
    ["", "/"],
    ["https://evil.example/", "/"],
    ["//evil.example/x", "/"],
    ["/\\evil.example", "/"],
    // Browsers drop tabs and newlines from URLs: "/\t/evil" would be "//evil".
    ["/\t/evil.example", "/"],
    ["/\n/x", "/"],
    ["/\r\n/x", "/"],
    ["/ /x", "/"],
    ["/\u0000/x", "/"],
    ["/caf\u00e9", "/"],
    ["/\u20ac", "/"],
    ["evil.example", "/"],
  ])("%j -> %s", (next, want) => {
    expect(safeNext(next)).toBe(want);
  });
});
