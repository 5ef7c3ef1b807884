import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Schedule } from "./schedule";

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(0);
});
afterEach(() => {
  vi.useRealTimers();
});

/** A schedule every 100 ms whose ticks take the given times (then 10 ms each); what ran and what was missed. */
function run(durations: number[]) {
  const started: number[] = [];
  let missed = 0;
  const schedule = new Schedule(
    () => 100,
    (now) => {
      started.push(now);
      const ms = durations[started.length - 1] ?? 10;
      return new Promise<boolean>((resolve) => setTimeout(() => resolve(true), ms));
    },
    (n) => (missed += n),
  );
  return { schedule, started, missed: () => missed };
}

describe("Schedule", () => {
  it("one tick per slot, on absolute slots", async () => {
    const s = run([]);
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(1005);
    s.schedule.stop();
    expect(s.started).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(s.missed()).toBe(0);
  });

  it("a slot due while a tick still runs waits for it, within its own time: no sample lost", async () => {
    const s = run([150]);
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(1005);
    s.schedule.stop();
    // The slot at 100 ran when the first tick ended, at 150; every later one on time.
    expect(s.started).toEqual([0, 150, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(s.missed()).toBe(0);
  });

  it("a slot whose time passed while it waited is missed, and only that one", async () => {
    const s = run([250]);
    s.schedule.start();
    await vi.advanceTimersByTimeAsync(1005);
    s.schedule.stop();
    expect(s.started).toEqual([0, 250, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(s.missed()).toBe(1);
  });

  it("misses the slots the event loop held it up past, at the interval in force when they came due", async () => {
    let interval = 100;
    let missed = 0;
    const started: number[] = [];
    const schedule = new Schedule(
      () => interval,
      (now) => {
        started.push(now);
        // The tick at 1400 holds the event loop for 2.5 s.
        if (now === 1400) vi.setSystemTime(now + 2500);
        return true;
      },
      (n) => (missed += n),
    );
    schedule.start();
    await vi.advanceTimersByTimeAsync(305); // slots at 0, 100, 200, 300; the next is due at 400
    interval = 1000; // the budget stretched it from the slot at 400 on
    await vi.advanceTimersByTimeAsync(1100);
    expect(started).toEqual([0, 100, 200, 300, 400, 1400]);
    expect(missed).toBe(0);
    // Due at 2400, run at 4900: the slots at 2400 and 3400 passed, missed.
    await vi.advanceTimersByTimeAsync(1000);
    schedule.stop();
    expect(started).toEqual([0, 100, 200, 300, 400, 1400, 4900]);
    expect(missed).toBe(2);
  });

  it("a slot due during an extra run takes its sample when the extra ends, once", async () => {
    const s = run([]);
    s.schedule.start(); // the slot at 0 runs (10 ms)
    await vi.advanceTimersByTimeAsync(50);
    // An extra run from 90 to 130: the slot due at 100 waits for it.
    s.schedule.extra(40, () => new Promise<void>((resolve) => setTimeout(resolve, 40)));
    await vi.advanceTimersByTimeAsync(255);
    s.schedule.stop();
    expect(s.started).toEqual([0, 130, 200, 300]);
    expect(s.missed()).toBe(0);
  });

  it("an extra run due while a tick runs waits for it and runs when it ends", async () => {
    const s = run([30]);
    const extras: number[] = [];
    s.schedule.start(); // the slot at 0 runs until 30
    await vi.advanceTimersByTimeAsync(5);
    s.schedule.extra(10, async (now) => void extras.push(now)); // due at 15, during the tick
    await vi.advanceTimersByTimeAsync(150);
    s.schedule.stop();
    expect(extras).toEqual([30]);
    expect(s.started).toEqual([0, 100]);
    expect(s.missed()).toBe(0);
  });

  it("an extra run waiting for a tick is skipped, not missed, when a slot waits too or the next slot is close", async () => {
    const s = run([120, 10, 90]);
    const extras: number[] = [];
    s.schedule.start(); // the slot at 0 runs until 120; the slot at 100 waits for it
    await vi.advanceTimersByTimeAsync(5);
    s.schedule.extra(10, async (now) => void extras.push(now));
    // The slot at 200 runs until 290; an extra due at 215 would wait until 290, 10 ms before the slot at 300.
    await vi.advanceTimersByTimeAsync(200);
    s.schedule.extra(15, async (now) => void extras.push(now));
    await vi.advanceTimersByTimeAsync(150);
    s.schedule.stop();
    expect(extras).toEqual([]);
    expect(s.started).toEqual([0, 120, 200, 300]);
    expect(s.missed()).toBe(0);
  });

  it("never two ticks at once", async () => {
    let running = 0;
    let most = 0;
    const schedule = new Schedule(
      () => 100,
      () => {
        most = Math.max(most, ++running);
        return new Promise<boolean>((resolve) => setTimeout(() => (running--, resolve(true)), 130));
      },
      () => undefined,
    );
    schedule.start();
    await vi.advanceTimersByTimeAsync(2000);
    schedule.stop();
    expect(most).toBe(1);
  });
});
