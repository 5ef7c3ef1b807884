import { describe, expect, it } from "vitest";
import {
  AIOS_FLOOR_MS,
  AIOS_PROBE_FIRST_MS,
  AIOS_PROBE_MS,
  BUDGET_WINDOW_MS,
  Budget,
  OTHERS_SHARE_ASSUMED,
  SAMPLING_SHARE,
  budgetAffording,
  nextProbeMs,
} from "./budget";

describe("Budget", () => {
  it("affords reads while it holds their cost and refills at (a tenth under) its rate", () => {
    const b = new Budget(5, 0);
    expect(b.affords(2, 0)).toBe(true);
    b.spend(4, 0);
    expect(b.affords(2, 0)).toBe(false);
    expect(b.affords(2, 300)).toBe(true); // 1 + 0.3 s x 4.5 ms/s
  });

  it("runs into a debt of at most a second of budget, whatever one charge was: the window keeps it whole", () => {
    const b = new Budget(5, 0);
    b.spend(400, 0); // a first round trip held up for 400 ms
    expect(b.spentInWindow(19_000)).toBe(400);
    expect(b.affords(0.05, 19_000)).toBe(false); // the window says no while it holds the charge
    // ...and once the charge has left it, the bucket does not go on repaying it (unbounded: -305 ms)
    expect(b.affords(0.05, 20_001)).toBe(true);
  });

  it("affords one read costlier than a second of budget when full, then pays the debt first", () => {
    const b = new Budget(5, 0);
    expect(b.affords(17, 0)).toBe(true);
    b.spend(17, 0);
    expect(b.affords(17, 2000)).toBe(false);
    expect(b.affords(17, 4000)).toBe(true);
  });

  it("stretches an interval only on an exact cost", () => {
    const b = new Budget(5, 0);
    expect(b.interval(1000, null, 0.15)).toBe(1000);
    expect(b.interval(1000, 0.1, 0.15)).toBe(1000);
    expect(b.interval(1000, 1.5, 0.15)).toBe(2000);
  });

  /** The most any BUDGET_WINDOW_MS of these charges (times ascending) adds up to. */
  function worstWindow(charges: { t: number; ms: number }[]): number {
    let worst = 0;
    let sum = 0;
    let lo = 0;
    for (const c of charges) {
      sum += c.ms;
      while (charges[lo].t <= c.t - BUDGET_WINDOW_MS) sum -= charges[lo++].ms;
      worst = Math.max(worst, sum);
    }
    return worst;
  }

  // Issue 21: 5.75 ms/s over 20 s against 5 during cold scans on a 1000 x 64 server.
  it("holds over every 20 s window: a sample every 100 ms that is never put off, pg_aios read when it fits", () => {
    const b = new Budget(5, 0);
    const charges: { t: number; ms: number }[] = [];
    let reads = 0;
    for (let t = 0; t < 300_000; t += 100) {
      const sample = 0.1 + (t % 700 === 0 ? 0.4 : 0); // now and then a slower one
      b.spend(sample, t);
      charges.push({ t, ms: sample });
      const aios = 1.7 + ((t / 100) % 5) * 0.2; // 1.7 to 2.5 ms, as the handles in flight come and go
      if (b.affords(aios, t)) {
        b.spend(aios, t);
        charges.push({ t, ms: aios });
        reads++;
      }
    }
    expect(worstWindow(charges)).toBeLessThanOrEqual((5 * BUDGET_WINDOW_MS) / 1000);
    // and the budget is used, not sat on: ~1.5 reads a second fit beside the samples
    expect(reads / 300).toBeGreaterThan(1.2);
  });

  it("puts a read off before the window would go over, not after: what was owed counts where it was spent", () => {
    const b = new Budget(5, 0);
    for (let t = 0; t < 10_000; t += 100) b.spend(0.4, t); // 40 ms in 10 s
    // pg_stat_statements: those calls took 45 ms more than they were charged
    b.settle(45, 0, 10_000);
    expect(b.spentInWindow(10_000)).toBeCloseTo(85, 5);
    expect(b.affords(6, 10_000)).toBe(false); // 85 + 6 > 90 (a tenth under 100)
    expect(b.affords(4, 10_000)).toBe(true); // the bucket was not emptied to repay it
    // The owed time leaves the window with the calls it was for.
    expect(b.spentInWindow(25_000)).toBeCloseTo(19.6 + 22.5, 5); // the calls after 5 s, and half of what they owed
    expect(b.spentInWindow(30_001)).toBe(0);
  });

  // Under load the first reads of a server were charged their round trips (3 ms for the
  // settings, against 0.3 on the server), and pg_aios waited 20 s for them to leave the window.
  it("gives back what calls were charged beyond what pg_stat_statements says they took, where they were made", () => {
    const b = new Budget(5, 0);
    for (let t = 0; t < 10_000; t += 100) b.spend(0.8, t); // 80 ms charged in 10 s
    expect(b.affords(2, 10_000)).toBe(false); // 80 + 2 > 90... and the bucket is empty
    b.settle(-60, 0, 10_000); // the server took 20 of them
    expect(b.spentInWindow(10_000)).toBeCloseTo(20, 5);
    expect(b.affords(2, 12_000)).toBe(true);
    expect(b.spentInWindow(25_000)).toBeCloseTo(49 * 0.8 - 30, 5); // the calls after 5 s, less their part of what was given back
  });

  it("never affords a read that alone costs more than the window's budget, not even at the floor", () => {
    const b = new Budget(5, 0);
    expect(b.affords(95, 60_000)).toBe(false);
    expect(b.affordsFloor(95, 60_000)).toBe(true); // 95 of the window's 100
    expect(b.affordsFloor(101, 60_000)).toBe(false);
  });

  // e2e on io_uring, a loaded machine: a fresh inflight's window full of round trips, pg_aios
  // at 0.3 ms never read for a minute.
  it("reads a cheap pg_aios at its floor whatever the window holds; a costly one only where it fits", () => {
    const b = new Budget(5, 0);
    b.spend(120, 1000); // first reads charged at their round trips
    expect(b.affordsFloor(0.3, 2000)).toBe(true);
    expect(b.affordsFloor(4.9, 2000)).toBe(true); // two a window fit in the tenth of headroom (5 ms)
    expect(b.affordsFloor(5.1, 2000)).toBe(false);
    expect(b.affordsFloor(30, 2000)).toBe(false);
    expect(b.affordsFloor(30, 21_001)).toBe(true); // once the round trips have left the window
  });

  it("gives the wait events what the other reads and pg_aios's floor leave, a tenth under the budget, from 0.3 to four fifths", () => {
    const b = new Budget(5, 0);
    expect(b.samplingShare(0, 0)).toBe(SAMPLING_SHARE);
    expect(b.samplingShare(2, 0.3)).toBe(SAMPLING_SHARE); // 0.2 + 0.3 ms/s of 5: room enough
    expect(b.samplingShare(1, 0.45)).toBeCloseTo(0.79, 5); // the 1000 x 64 server in the bench
    expect(b.samplingShare(0, 1)).toBeCloseTo(0.7, 5); // CI, a loaded machine: the other reads took 1 ms/s
    expect(b.samplingShare(20, 0)).toBeCloseTo(0.5, 5); // 2 ms/s of 5 for the floor
    expect(b.samplingShare(0, null)).toBeCloseTo(0.9 - OTHERS_SHARE_ASSUMED, 5); // not measured yet
    expect(b.samplingShare(20, null)).toBeCloseTo(0.5 - OTHERS_SHARE_ASSUMED, 5);
    expect(b.samplingShare(40, 0)).toBe(0.3);
    expect(new Budget(50, 0).samplingShare(20, 1)).toBe(SAMPLING_SHARE);
  });

  it("names the budget that affords the wait events and pg_aios's floor", () => {
    expect(budgetAffording(3.6, 30)).toBe(8); // (3.6 + 3) / 0.9 = 7.3
    expect(budgetAffording(4.5, 0)).toBe(6); // 4.5 / 0.75 = 6
  });

  // CI, a loaded machine: on the 1000 x 64 server the sample took 0.36 ms and pg_aios 30 ms a
  // read; at 10 samples a second and the floor every 10 s that is 6.66 ms/s against 5.
  it("holds over every 20 s window where pg_aios's floor alone would take most of the budget, or the other reads a fifth of it", () => {
    // [sample ms, pg_aios ms a read, the other reads' ms each second]
    for (const [sampleMs, aiosMs, otherMs] of [
      [0.36, 30, 0],
      [0.36, 45, 0],
      [0.1, 8, 0],
      [0.45, 2, 0],
      [0.4, 1, 0.45],
      [0.36, 3, 1],
      [0.42, 1, 1.5],
    ]) {
      const b = new Budget(5, 0);
      const charges: { t: number; ms: number }[] = [];
      const others: { t: number; ms: number }[] = [];
      let readAt = -Infinity;
      let otherAt = -Infinity;
      let reads = 0;
      let samples = 0;
      for (let t = 0; t < 300_000;) {
        b.spend(sampleMs, t);
        charges.push({ t, ms: sampleMs });
        samples++;
        // Pace.aios: past the bucket at the floor, never past the window
        const floor = t - readAt >= AIOS_FLOOR_MS;
        if (floor ? b.affordsFloor(aiosMs, t) : b.affords(aiosMs, t)) {
          b.spend(aiosMs, t);
          charges.push({ t, ms: aiosMs });
          readAt = t;
          reads++;
        }
        if (otherMs > 0 && t - otherAt >= 1000) {
          b.spend(otherMs, t);
          charges.push({ t, ms: otherMs });
          others.push({ t, ms: otherMs });
          otherAt = t;
        }
        // the collector: the other reads' ms/s over the last 10 s, once a session is a window old
        const measured = t < BUDGET_WINDOW_MS ? null : others.filter((o) => o.t > t - 10_000).reduce((n, o) => n + o.ms, 0) / 10;
        t += b.interval(100, sampleMs, b.samplingShare(aiosMs, measured));
      }
      const what = `${sampleMs} ms a sample, ${aiosMs} ms a read, ${otherMs} ms/s of other reads`;
      // Other reads costlier than assumed (OTHERS_SHARE_ASSUMED) are an estimate that fell short
      // until the session's first window has measured them: from then on, every window holds.
      const from = otherMs > OTHERS_SHARE_ASSUMED * 5 ? BUDGET_WINDOW_MS : 0;
      expect(worstWindow(charges.filter((c) => c.t >= from)), what).toBeLessThanOrEqual((5 * BUDGET_WINDOW_MS) / 1000);
      // pg_aios is read, at its floor at least, where a read fits beside the slowed samples
      if (aiosMs <= 30) expect(reads, what).toBeGreaterThanOrEqual(300_000 / AIOS_FLOOR_MS - 1);
      else expect(reads).toBeGreaterThan(0);
      // the bench's 1000 x 64 server (0.4 ms a sample, the other reads 0.45 ms/s): 10 a second within 5%
      if (sampleMs === 0.4 && otherMs === 0.45) expect(samples / 300, what).toBeGreaterThanOrEqual(9.5);
    }
  });
});

describe("nextProbeMs: a pg_aios read that does not fit is tried again sooner than 5 min at first", () => {
  it("doubles from 30 s while each probe still does not fit, up to 5 min, and starts again after a read that fit", () => {
    const waits = [AIOS_PROBE_FIRST_MS];
    for (let i = 0; i < 5; i++) waits.push(nextProbeMs(waits.at(-1)!, true));
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000, AIOS_PROBE_MS, AIOS_PROBE_MS]);
    expect(nextProbeMs(AIOS_PROBE_MS, false)).toBe(AIOS_PROBE_FIRST_MS);
  });
});
