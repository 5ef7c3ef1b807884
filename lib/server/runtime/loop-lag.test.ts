import { describe, expect, it } from "vitest";
import { LoopLag } from "./loop-lag";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Holds the event loop for `ms` on the wall clock, as a burst of synchronous work would. */
const hold = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // held
  }
};

/** A started LoopLag for `check`, stopped after it whatever happens. */
async function withLag(check: (lag: LoopLag) => Promise<void>): Promise<void> {
  const lag = new LoopLag();
  lag.start();
  try {
    await check(lag);
  } finally {
    lag.stop();
  }
}

describe("LoopLag", () => {
  it("sees the event loop held up, and only since when it was", async () => {
    await withLag(async (lag) => {
      await sleep(300);
      const before = performance.now();
      hold(400);
      await sleep(50);
      expect(lag.maxSince(before)).toBeGreaterThan(300);
      await sleep(700);
      expect(lag.maxSince(performance.now() - 100)).toBeLessThan(200);
    });
  });

  it("counts a hold-up asked about before any timer has run since it ended", async () => {
    await withLag(async (lag) => {
      await sleep(100);
      const before = performance.now();
      hold(300);
      expect(lag.maxSince(before)).toBeGreaterThan(250);
    });
  });

  it("keeps a hold-up wherever it falls against the slices (every 25 ms across one 250 ms slice)", async () => {
    await withLag(async (lag) => {
      const missed: number[] = [];
      for (let offset = 0; offset < 250; offset += 25) {
        await sleep(offset);
        const before = performance.now();
        hold(150);
        await sleep(30);
        if (!(lag.maxSince(before) > 100)) missed.push(offset);
      }
      expect(missed).toEqual([]);
    });
  });
});
