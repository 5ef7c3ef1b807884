import { describe, expect, it } from "vitest";
import { LoopLag } from "./loop-lag";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("LoopLag", () => {
  it("sees the event loop held up, and only since when it was", async () => {
    const lag = new LoopLag();
    lag.start();
    try {
      await sleep(300);
      const before = performance.now();
      const until = Date.now() + 400;
      while (Date.now() < until) {
        // hold the event loop, as a burst of synchronous work would
      }
      await sleep(50);
      expect(lag.maxSince(before)).toBeGreaterThan(300);
      await sleep(700);
      expect(lag.maxSince(performance.now() - 100)).toBeLessThan(200);
    } finally {
      lag.stop();
    }
  });
});
