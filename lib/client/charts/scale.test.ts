import { describe, expect, it } from "vitest";
import { pow2Ticks } from "./scale";

describe("pow2Ticks", () => {
  it.each([
    [128, [0, 32, 64, 96, 128]],
    [119, [0, 32, 64, 96, 128]],
    [640, [0, 256, 512, 768]],
    [3, [0, 1, 2, 3]],
    [0, [0, 1]],
    [Number.NaN, [0, 1]],
  ])("max %s -> %j", (max, ticks) => expect(pow2Ticks(max)).toEqual(ticks));
});
