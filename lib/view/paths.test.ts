import { describe, expect, it } from "vitest";
import { areaPath, dotsPath, linePath, nearestRow, pixelXs, runs, stackLayers, stackedMax } from "./paths";

const x = (t: number) => t * 10;
const y = (v: number) => 100 - v * 10;

describe("series paths", () => {
  it("finds the runs of present values", () => {
    const v = [1, null, 2, 3, null, null, 4];
    expect(runs(v.length, (i) => v[i] !== null)).toEqual([
      [0, 0],
      [2, 3],
      [6, 6],
    ]);
    expect(runs(0, () => true)).toEqual([]);
  });

  it("draws a line through the values and breaks it at a null", () => {
    const xs = pixelXs([0, 1, 2, 3, 4], x);
    expect(linePath(xs, [1, 2, null, 3, 4], y)).toBe("M0,90L10,80M30,70L40,60");
  });

  it("draws steps that hold a value until the next sample", () => {
    const xs = pixelXs([0, 1, 2], x);
    expect(linePath(xs, [1, 3, 2], y, "stepAfter")).toBe("M0,90H10V70H20V80");
  });

  it("closes an area along its low edge, backwards, and splits it at a gap", () => {
    const xs = pixelXs([0, 1, 2, 3], x);
    expect(areaPath(xs, [0, 0, null, 1], [2, 1, null, 3], y)).toBe("M0,80L10,90L10,100L0,100ZM30,70L30,90Z");
    expect(areaPath(xs.slice(0, 2), [0, 1], [2, 3], y, "stepAfter")).toBe("M0,80H10V70L10,90V100H0Z");
  });

  it("stacks each layer on the ones before it; a null is a gap that adds nothing", () => {
    const rows = [
      { a: 1, b: 2 },
      { a: null, b: null },
      { a: 3, b: null },
    ];
    const layers = stackLayers(rows, ["a", "b"], (r, k) => r[k as "a" | "b"]);
    expect(layers).toEqual([
      { key: "a", lows: [0, null, 0], highs: [1, null, 3] },
      { key: "b", lows: [1, null, null], highs: [3, null, null] },
    ]);
    expect(stackedMax(layers)).toBe(3);
  });

  it("leaves out what the axis cannot place", () => {
    const xs = pixelXs([0, 1, 2], (t) => (t === 1 ? undefined : x(t)));
    expect(linePath(xs, [1, 2, 3], y)).toBe("M0,90M20,70");
  });

  it("puts a dot at each value, none at a null, in one path", () => {
    const xs = pixelXs([0, 1, 2], x);
    expect(dotsPath(xs, [1, null, 2], y, 2)).toBe("M-2,90a2,2 0 1,0 4,0a2,2 0 1,0 -4,0M18,80a2,2 0 1,0 4,0a2,2 0 1,0 -4,0");
  });

  it("finds the row nearest the pointer's time", () => {
    const rows = [10, 20, 30, 40, 50].map((t) => ({ t }));
    expect(nearestRow(rows, 40)).toBe(rows[3]);
    expect(nearestRow(rows, 36)).toBe(rows[3]);
    expect(nearestRow(rows, 34)).toBe(rows[2]);
    expect(nearestRow(rows, 35)).toBe(rows[2]);
    expect(nearestRow(rows, -5)).toBe(rows[0]);
    expect(nearestRow(rows, 99)).toBe(rows[4]);
    expect(nearestRow([{ t: 7 }], 1)).toEqual({ t: 7 });
    expect(nearestRow([], 1)).toBeNull();
  });
});
