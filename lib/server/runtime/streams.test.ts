import { describe, expect, it } from "vitest";
import { StreamLimits } from "./streams";

describe("StreamLimits", () => {
  it("caps streams per client and in all; a released one frees its place once", () => {
    const limits = new StreamLimits(5, 3);
    const a = [1, 2, 3].map(() => limits.admit("a"));
    expect(a.every((x) => "release" in x)).toBe(true);
    expect(limits.admit("a")).toEqual({ refused: "client", retryAfterS: expect.any(Number) });
    const b = [1, 2].map(() => limits.admit("b"));
    expect(b.every((x) => "release" in x)).toBe(true);
    expect(limits.admit("c")).toEqual({ refused: "server", retryAfterS: expect.any(Number) });
    expect(limits.count).toBe(5);
    const first = a[0] as { release: () => void };
    first.release();
    first.release();
    expect(limits.count).toBe(4);
    expect("release" in limits.admit("c")).toBe(true);
    expect(limits.admit("d")).toMatchObject({ refused: "server" });
    expect(limits.refused).toEqual({ server: 2, client: 1 });
  });
});
