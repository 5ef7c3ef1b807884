import { describe, expect, it } from "vitest";
import { formatAgo, formatBytes, formatClock, formatDuration, formatNumber, formatShare, majorVersion, byCodePoint } from "./format";

describe("formatBytes", () => {
  it.each([
    [0, "0 B"],
    [512, "512 B"],
    [8192, "8 kB"],
    [131_072, "128 kB"],
    [1.5 * 1024 * 1024, "1.5 MB"],
    [256 * 1024 * 1024, "256 MB"],
    [3 * 1024 ** 3, "3 GB"],
    [1.25 * 1024 ** 3, "1.3 GB"],
    [393_216, "384 kB"],
    [-2048, "-2 kB"],
    [-1536, "-1.5 kB"],
    [null, "–"],
    [Number.NaN, "–"],
  ])("%s -> %s", (bytes, text) => expect(formatBytes(bytes)).toBe(text));
});

describe("formatDuration", () => {
  it.each([
    [0, "0 ms"],
    [0.25, "0.25 ms"],
    [4.56, "4.6 ms"],
    [850, "850 ms"],
    [1234, "1.2 s"],
    [42_000, "42 s"],
    [60_000, "1 min"],
    [192_000, "3 min 12 s"],
    [7_500_000, "2 h 5 min"],
    [2 * 86_400_000 + 3_600_000, "2 d 1 h"],
    [null, "–"],
  ])("%s -> %s", (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe("formatClock", () => {
  it("prints local HH:MM:SS with leading zeros", () => {
    expect(formatClock(new Date(2025, 0, 1, 4, 2, 9).getTime())).toBe("04:02:09");
    expect(formatClock(new Date(2025, 0, 1, 14, 2, 11, 999).getTime())).toBe("14:02:11");
  });
});

describe("formatNumber / formatShare / formatAgo", () => {
  it.each([
    [3, "3"],
    [1234, "1,234"],
    [-1234, "-1,234"],
    [1234.56, "1,235"],
    [12.345, "12.3"],
    [0.25, "0.25"],
    [45_678, "45.7 k"],
    [2_500_000, "2.5 M"],
  ])("number %s -> %s", (n, text) => expect(formatNumber(n)).toBe(text));
  it.each([
    [0.423, "42%"],
    [0.004, "<1%"],
    [0, "0%"],
    [null, "–"],
  ])("share %s -> %s", (n, text) => expect(formatShare(n)).toBe(text));
  it("says how long ago", () => {
    expect(formatAgo(1000, 1500)).toBe("just now");
    expect(formatAgo(0, 42_000)).toBe("42 s ago");
  });
});

describe("majorVersion", () => {
  it.each([
    ["18.4", 180004, 18],
    ["16.9", 160009, 16],
    ["17beta1", null, 17],
    [null, null, null],
  ] as const)("%s / %s -> %s", (v, num, major) => expect(majorVersion(v, num)).toBe(major));
});

describe("byCodePoint", () => {
  it("orders identifiers as localeCompare did for these names, equal ones as equal", () => {
    const names = [
      "io_workers",
      "effective_io_concurrency",
      "io_method",
      "io_max_concurrency",
      "stat_io",
      "statements",
      "-42",
      "100",
      "12",
    ];
    expect([...names].sort(byCodePoint)).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    expect(byCodePoint("aios", "aios")).toBe(0);
    expect(byCodePoint("aios", "activity")).toBe(1);
    expect(byCodePoint("activity", "aios")).toBe(-1);
  });
});
