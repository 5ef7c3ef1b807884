import { describe, expect, it } from "vitest";
import { Budget } from "./budget";
import { CostMeter } from "./cost";
import { watchCost, type CostFacts } from "./watch-cost";

describe("CostMeter", () => {
  it("estimates a statement's server time as its round trip less a ping's", () => {
    const c = new CostMeter();
    c.ping(0.1);
    c.observe("activity", 0.4, 1000);
    expect(c.estimate("activity", 1000)).toBeCloseTo(0.3);
  });

  it("takes the least recent round trip: one held up by a busy event loop does not count as the server's time", () => {
    const c = new CostMeter();
    for (const ms of [0.3, 4.5, 0.2, 6, 0.25]) c.observe("activity", ms, 1000);
    expect(c.estimate("activity", 1000)).toBeCloseTo(0.2);
  });

  it("does not let a first call (parse and plan) stand for the statement once a second one is known", () => {
    const c = new CostMeter();
    c.observe("aios", 5.5, 1000, true);
    expect(c.estimate("aios", 1000)).toBeCloseTo(5.5);
    c.observe("aios", 0.1, 1100);
    expect(c.estimate("aios", 1100)).toBeCloseTo(0.1);
  });

  it("prefers inflight's own pg_stat_statements figure while it is recent", () => {
    const c = new CostMeter();
    c.observe("aios", 2, 1000);
    c.calibrate("aios", 1.5, 1000);
    expect(c.estimate("aios", 2000)).toBe(1.5);
    expect(c.exact("aios", 2000)).toBe(1.5);
    expect(c.exact("aios", 1000 + 61_000)).toBeNull();
    // Once it is old, the round trips stand in, scaled by the server's share of one then (1.5 of 2).
    expect(c.estimate("aios", 1000 + 61_000)).toBeCloseTo(1.5);
  });

  it("does not take a loaded machine's round trips for the server's time once the exact figure is old", () => {
    const c = new CostMeter();
    for (let t = 0; t < 3; t++) c.observe("aios", 30, 1000 + t); // mostly our own wait
    c.calibrate("aios", 1.14, 2000);
    c.observe("aios", 28, 50_000);
    // CI: read as 28.58 ms, pg_aios was put off for it and so never calibrated again.
    expect(c.estimate("aios", 70_000)).toBeLessThan(2);
  });

  it("hands over what each statement was charged since the last hand-over, and for how many calls, then starts again from zero", () => {
    const c = new CostMeter();
    c.observe("aios", 2, 1000);
    c.observe("aios", 2, 1100);
    c.observe("activity", 0.3, 1100);
    expect(c.takeCharges()).toEqual(
      new Map([
        ["aios", { ms: 4, calls: 2 }],
        ["activity", { ms: 0.3, calls: 1 }],
      ]),
    );
    expect(c.takeCharges()).toEqual(new Map());
    c.calibrate("aios", 1.5, 1200);
    c.observe("aios", 9, 1200);
    expect(c.takeCharges()).toEqual(new Map([["aios", { ms: 1.5, calls: 1 }]]));
  });

  it("counts what pg_stat_statements says calls took beyond their charge: in ms/s and the totals, not as calls", () => {
    const c = new CostMeter();
    for (let t = 0; t < 10_000; t += 100) c.observe("aios", 1, t);
    c.takeCharges();
    c.owe("aios", 50, 10_000);
    c.owe("aios", -5, 10_000);
    const [aios] = c.statements(10_000, 0);
    expect(aios.callsPerSecond).toBeCloseTo(9.9, 5); // (0, 10 s]: 99 calls
    expect(aios.msPerSecond).toBeCloseTo(14.9, 5); // 99 ms charged + 50 owed, over 10 s
    expect(c.msPerSecond(10_000, 0)).toBeCloseTo(14.9, 5);
    expect(c.totals()).toEqual([{ statement: "aios", seconds: expect.closeTo(0.15, 9) }]);
    expect(c.takeCharges()).toEqual(new Map());
  });

  // Issue 21: charged at a cost up to 10 s old, a server that got busier went over the budget until pg_stat_statements told.
  it("charges a call at the cost as last measured: more than pg_stat_statements' figure once round trips say so", () => {
    const c = new CostMeter();
    for (let t = 0; t < 1000; t += 100) c.observe("aios", 3, t); // round trips of 3 ms ...
    c.calibrate("aios", 1.5, 1000); // ... of which the server's 1.5
    expect(c.observe("aios", 2.4, 1100)).toBe(1.5);
    expect(c.observe("aios", 6, 1200)).toBe(1.5); // one slow round trip is not the server's
    expect(c.observe("aios", 5, 1300)).toBe(1.5);
    expect(c.observe("aios", 5.2, 1400)).toBeCloseTo(2.5); // three in a row are: half of 5
    expect(c.observe("aios", 1.0, 1500)).toBe(1.5);
  });

  it("says ms per second over the last 10 s, per statement, costliest first", () => {
    const c = new CostMeter();
    for (let t = 0; t < 10_000; t += 100) c.observe("activity", 0.1, t);
    for (let t = 0; t < 10_000; t += 1000) c.observe("stat_io", 0.5, t);
    expect(c.msPerSecond(10_000, 0)).toBeCloseTo(1.44, 2); // (0, 10 s]: 99 samples and 9 reads
    expect(c.statements(10_000, 0).map((s) => s.statement)).toEqual(["activity", "stat_io"]);
  });
});

describe("watchCost: the cost line's note", () => {
  const facts = (cost: CostMeter, budget: Budget, now: number, over: Partial<CostFacts> = {}): CostFacts => ({
    now,
    since: 0,
    cost,
    budget,
    asked: 100,
    interval: 100,
    aios: { intervalMs: null, skipped: 0, starved: false, retryMs: 30_000 },
    aiosRead: true,
    samplingShare: budget.samplingShare(cost.estimate("aios", now), 0),
    othersMsPerSecond: 0,
    ...over,
  });
  /** Ten samples a second at `sampleMs` over the last 10 s, and pg_aios at `aiosMs` a read, exact. */
  function meter(sampleMs: number, aiosMs: number, now: number, budget: Budget): CostMeter {
    const c = new CostMeter();
    for (let t = now - 10_000; t <= now; t += 100) {
      c.observe("activity", sampleMs, t);
      budget.spend(sampleMs, t);
    }
    c.calibrate("activity", sampleMs, now);
    c.observe("aios", aiosMs, now);
    c.calibrate("aios", aiosMs, now);
    return c;
  }

  it("never says 'within' beside a figure over the budget", () => {
    const budget = new Budget(5, 0);
    const c = meter(0.6, 1, 20_000, budget); // 6 ms/s of samples
    const w = watchCost(facts(c, budget, 20_000));
    expect(w.msPerSecond).toBeGreaterThan(5);
    expect(w.spanS).toBe(10);
    // The header says "over the budget in the last 10 s"; the note only why, never "within".
    expect(w.note).not.toMatch(/within|budget \(INFLIGHT_BUDGET\)/i);
    expect(w.note).toMatch(/^a read cost more than it was charged/);
    // Right after inflight started, the reason is its first reads' round trips.
    const starting = watchCost(facts(c, budget, 20_000, { since: 15_000 }));
    expect(starting.spanS).toBe(5);
    expect(starting.note).toMatch(/^inflight's first reads of this server: they are charged at their round trips/);
  });

  it("names the budget that would afford pg_aios where no read fits beside the wait events", () => {
    const budget = new Budget(5, 0);
    const c = meter(0.36, 80, 20_000, budget);
    const w = watchCost(
      facts(c, budget, 20_000, { interval: 240, aios: { intervalMs: null, skipped: 40, starved: true, retryMs: 60_000 } }),
    );
    expect(w.note).toContain(
      "pg_aios not read for over 10 s while backends run: a read costs 80.00 ms here, more than the budget leaves beside the wait events (INFLIGHT_BUDGET=13 affords one every 10 s at least)",
    );
    expect(w.note).toContain(
      "wait events every 240 ms, not 100: the sample costs 0.36 ms here, and pg_aios 80.00 ms a read, one every 10 s at least",
    );
    expect(w.note).toContain("it is tried again 1 min after the last read (twice as long each time it still does not fit, up to 5 min)");
  });

  it("says a cheap pg_aios is put off right after the start because inflight's first reads took the budget's last second", () => {
    const budget = new Budget(5, 0);
    const c = new CostMeter();
    c.observe("settings", 20, 4000, true); // a first call on a loaded machine, charged its round trip
    budget.spend(20, 4000);
    c.observe("aios", 0.14, 4000);
    const w = watchCost(facts(c, budget, 5000, { since: 2000, aios: { intervalMs: 2100, skipped: 12, starved: false, retryMs: 30_000 } }));
    expect(w.note).toContain("it costs 0.14 ms a read, but the last second's budget went to inflight's first reads of this server");
    expect(w.spanS).toBe(3); // since inflight started, not 10 s
  });

  it("says a cheap pg_aios is put off because the window is spent, not because of its cost", () => {
    const budget = new Budget(5, 0);
    const c = meter(0.3, 0.1, 20_000, budget);
    budget.spend(60, 19_000); // inflight's first reads of a server, charged at their round trips
    const w = watchCost(facts(c, budget, 20_000, { aios: { intervalMs: 4000, skipped: 30, starved: false, retryMs: 30_000 } }));
    expect(w.note).toContain(
      "pg_aios read every 4000 ms while backends run, not every sample: it costs 0.10 ms a read, but 90 of the last 20 s's 100 ms are spent",
    );
    expect(w.note).not.toContain("handle slots");
  });

  it("says pg_aios is put off for its cost where what the samples leave pays for a read about that often", () => {
    const budget = new Budget(5, 0);
    const c = meter(0.18, 1.82, 20_000, budget); // the 1000 x 64 server, measured here
    const w = watchCost(facts(c, budget, 20_000, { aios: { intervalMs: 400, skipped: 60, starved: false, retryMs: 30_000 } }));
    expect(w.note).toContain(
      "pg_aios read every 400 ms while backends run, not every sample: it costs 1.82 ms a read on this server (about max_connections x io_max_concurrency handle slots)",
    );
  });
});
