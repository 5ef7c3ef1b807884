import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FailureThrottle } from "./throttle";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Runs `n` checks of one client one after another, each when the last answered, for `ms` of (fake) time. */
async function sequential(throttle: FailureThrottle, ms: number, check: () => boolean): Promise<number> {
  const until = Date.now() + ms;
  let checked = 0;
  const loop = (async () => {
    while (Date.now() < until) {
      await throttle.check("10.0.0.1", () => {
        checked++;
        return check();
      });
    }
  })();
  await vi.advanceTimersByTimeAsync(ms + 5000);
  await loop;
  return checked;
}

describe("FailureThrottle", () => {
  it("checks at most a handful of wrong tokens in 1.5 s from one client", async () => {
    const checked = await sequential(new FailureThrottle(), 1500, () => false);
    expect(checked).toBeLessThanOrEqual(6);
    expect(checked).toBeGreaterThan(1);
  });

  it("a burst from one client: one check runs, a few wait their turn, the rest are refused unchecked", async () => {
    const throttle = new FailureThrottle();
    let checked = 0;
    const results = Promise.all(Array.from({ length: 300 }, () => throttle.check("10.0.0.1", () => (checked++, false))));
    await vi.advanceTimersByTimeAsync(0);
    expect(checked).toBe(1);
    await vi.advanceTimersByTimeAsync(1500);
    expect(checked).toBeLessThanOrEqual(6);
    await vi.advanceTimersByTimeAsync(60_000);
    const all = await results;
    const busy = all.filter((r) => "busy" in r);
    expect(busy.length).toBeGreaterThanOrEqual(290);
    expect(checked).toBe(300 - busy.length);
    expect(busy[0]).toMatchObject({ busy: true, retryAfterS: expect.any(Number) });
  });

  it("a right token after a wrong one still works (after the pause), and clears it", async () => {
    const throttle = new FailureThrottle();
    expect(await throttle.check("10.0.0.1", () => false)).toEqual({ ok: false });
    const right = throttle.check("10.0.0.1", () => true);
    await vi.advanceTimersByTimeAsync(100);
    expect(await right).toEqual({ ok: true });
    // Cleared: the next check runs at once.
    let ran = false;
    void throttle.check("10.0.0.1", () => (ran = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(ran).toBe(true);
  });

  it("another client is not held up by one that guesses", async () => {
    const throttle = new FailureThrottle();
    for (let i = 0; i < 3; i++) {
      const p = throttle.check("10.0.0.1", () => false);
      await vi.advanceTimersByTimeAsync(2000);
      await p;
    }
    let ran = false;
    void throttle.check("10.0.0.2", () => (ran = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(ran).toBe(true);
  });
});
