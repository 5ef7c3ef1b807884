import { describe, expect, it } from "vitest";
import { clockOffset } from "./api";

describe("clockOffset", () => {
  const now = Date.parse("2025-06-01T12:00:00.000Z");
  it.each([
    { name: "same clock", header: "Sun, 01 Jun 2025 12:00:00 GMT", offset: 0 },
    { name: "server 1 min ahead", header: "Sun, 01 Jun 2025 12:01:00 GMT", offset: 60_500 },
    { name: "no header", header: null, offset: 0 },
    { name: "garbage", header: "soon", offset: 0 },
  ])("$name", ({ header, offset }) => expect(clockOffset(header, now, now)).toBe(offset));
});
