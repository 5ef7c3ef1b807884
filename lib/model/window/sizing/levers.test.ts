// The sizing of read-ahead, io_method (from the runs and from pg_stat_statements' minutes) and io_combine_limit.
import { describe, expect, it } from "vitest";
import { sizeLevers } from "./index";
import { readShareHigh } from "./method";
import { input, lever, scanRun, seconds, settingsOf } from "./cases";

describe("read-ahead", () => {
  const atCap = (i: number) => scanRun(i, { sumInFlight: 18, maxInFlight: 1 });
  const eic = (v: string, t = 0) => ({ t, settings: settingsOf({ effective_io_concurrency: v }) });

  it("scans waiting on their reads at effective_io_concurrency 1: raise it to the default", () => {
    const v = lever(sizeLevers(input({ runs: [atCap(1), atCap(2), atCap(3)], settings: [eic("1")] })), "effective_io_concurrency");
    expect(v).toMatchObject({ verdict: "raise", now: "1", value: "16", applies: "reload" });
    expect(v.statements[0]).toMatchObject({ queryId: "42", runs: 3 });
  });

  it("at the default cap: twice it", () => {
    const runs = [1, 2].map((i) => scanRun(i, { sumInFlight: 18 * 15 }));
    expect(lever(sizeLevers(input({ runs })), "effective_io_concurrency").value).toBe("32");
  });

  it("waiting with fewer in flight than allowed: the cap is not the limit, leave", () => {
    const v = lever(sizeLevers(input({ runs: [scanRun(1), scanRun(2)] })), "effective_io_concurrency");
    expect(v.verdict).toBe("leave");
    expect(v.figures.map((f) => f.text)).toContain("2 waited below the cap: 10.0 in flight on average at effective_io_concurrency 16");
  });

  it("judged against the value in force when each ran: raised since, leave", () => {
    const v = lever(sizeLevers(input({ runs: [atCap(1), atCap(2)], settings: [eic("1"), eic("16", 30_000)] })), "effective_io_concurrency");
    expect(v).toMatchObject({ verdict: "leave", now: "16" });
  });

  it("scans held back by the io workers are theirs, not read-ahead's", () => {
    const v = lever(
      sizeLevers(input({ runs: [atCap(1), atCap(2)], settings: [eic("1")], seconds: seconds(60, { reading: 10, full: 9 }) })),
      "effective_io_concurrency",
    );
    expect(v.verdict).toBe("leave");
  });

  it("vacuum's reads are maintenance_io_concurrency's", () => {
    const vac = (i: number) => scanRun(i, { query: "VACUUM t", queryId: "9", sumInFlight: 18, backendType: "client backend" });
    const levers = sizeLevers(
      input({ runs: [vac(1), vac(2)], settings: [{ t: 0, settings: settingsOf({ maintenance_io_concurrency: "1" }) }] }),
    );
    expect(lever(levers, "maintenance_io_concurrency")).toMatchObject({ verdict: "raise", value: "16" });
    expect(lever(levers, "effective_io_concurrency").verdict).toBe("leave");
  });
});

describe("io_method", () => {
  const method = (m: string, t: number) => ({ t, settings: settingsOf({ io_method: m }) });
  const timed = (i: number, ms: number) => scanRun(i, { endedAt: i * 3000 + ms, lastSeen: i * 3000 + ms });

  it("the same statement as fast under sync as under worker: no advice", () => {
    const runs = [timed(1, 2000), timed(2, 2100), timed(3, 1900), timed(11, 2050), timed(12, 1950), timed(13, 2000)];
    const v = lever(sizeLevers(input({ runs, settings: [method("sync", 0), method("worker", 30_000)] })), "io_method");
    expect(v).toMatchObject({ verdict: "leave", value: null, now: "worker" });
    expect(v.reason).toMatch(/within each other's spread/);
  });

  it("faster under worker outside the spread, now sync: change to worker, by restart", () => {
    const runs = [timed(1, 2050), timed(2, 1950), timed(3, 2000), timed(11, 4000), timed(12, 4200), timed(13, 3900)];
    const v = lever(sizeLevers(input({ runs, settings: [method("worker", 0), method("sync", 30_000)] })), "io_method");
    expect(v).toMatchObject({ verdict: "change", value: "worker", applies: "restart" });
  });

  it("faster under sync by more than its runs under worker waited on reads: on CPU, not io_method's doing, leave", () => {
    // The integration test's statement on CI: on CPU (no read waits), quicker under sync while the machine was quieter.
    const cpu = (i: number, ms: number) => ({ ...timed(i, ms), samples: 3, aioWaitSamples: 0, readWaitSamples: 0, cpuSamples: 3 });
    const worker = [1, 2, 3, 4, 5, 21, 22, 23, 24, 25].map((i) => cpu(i, 340 + (i % 5) * 10));
    const sync = [11, 12, 13, 14, 15].map((i) => cpu(i, 290 + (i % 5) * 5));
    const settings = [method("worker", 0), method("sync", 10 * 3000), method("worker", 20 * 3000)];
    const v = lever(sizeLevers(input({ to: 90_000, runs: [...worker, ...sync], settings })), "io_method");
    expect(v).toMatchObject({ verdict: "leave", value: null, now: "worker" });
    expect(v.reason).toMatch(/^1 statement ran faster under sync by more time than its runs under worker waited on reads/);
    expect(v.figures[0].text).toMatch(/under worker: 360 ms \(340 ms-380 ms, 10 runs, waiting on reads in 0 of 30 samples\)/);
    // The same timings with the runs under worker waiting on reads half the time: the gain is within them, change.
    const reading = worker.map((r) => ({ ...r, samples: 4, readWaitSamples: 2 }));
    expect(lever(sizeLevers(input({ to: 90_000, runs: [...reading, ...sync], settings })), "io_method")).toMatchObject({
      verdict: "change",
      value: "sync",
    });
  });

  it("the most of a run's time its samples allow for reads: 0 of 31 is at most 8%, 10 of 100 at most 16%, 31 of 31 all of it", () => {
    expect(readShareHigh(0, 31)).toBeCloseTo(0.08, 2);
    expect(readShareHigh(31, 31)).toBe(1);
    expect(readShareHigh(10, 100)).toBeCloseTo(0.16, 2);
    expect(readShareHigh(0, 0)).toBe(1);
  });

  it("never advice the history contradicts: another statement faster under the method in force", () => {
    const other = (i: number, ms: number) => ({ ...timed(i, ms), id: `o${i}`, queryId: "43" });
    const runs = [
      timed(1, 4000),
      timed(2, 4200),
      timed(11, 2050),
      timed(12, 1950),
      other(4, 1000),
      other(5, 1100),
      other(14, 3000),
      other(15, 3100),
    ];
    const v = lever(sizeLevers(input({ runs, settings: [method("worker", 0), method("sync", 30_000)] })), "io_method");
    expect(v.verdict).toBe("leave");
    expect(v.reason).toMatch(/contradicts/);
  });

  it("runs under one io_method only: leave, and say nothing compares", () => {
    expect(lever(sizeLevers(input({ runs: [timed(1, 2000)] })), "io_method").reason).toMatch(/no statement ran under two io_methods/);
  });
});

describe("io_combine_limit", () => {
  it("above io_max_combine_limit: clamped silently, lower it", () => {
    const v = lever(sizeLevers(input({ settings: [{ t: 0, settings: settingsOf({ io_combine_limit: "32" }) }] })), "io_combine_limit");
    expect(v).toMatchObject({ verdict: "lower", value: "16", applies: "reload" });
  });
});

describe("io_method from pg_stat_statements' minutes", () => {
  const sums = (calls: number, meanMs: number, sdMs: number) => ({
    calls,
    execMs: calls * meanMs,
    execSq: (calls - 1) * sdMs * sdMs + calls * meanMs * meanMs,
    readMs: null,
    blksRead: 0,
    blksHit: 0,
  });
  const minutes = (worker: ReturnType<typeof sums>, sync: ReturnType<typeof sums>) => ({
    byMethod: new Map([
      ["worker", new Map([["7", worker]])],
      ["sync", new Map([["7", sync]])],
    ]),
    texts: new Map([["7", "SELECT count(*) FROM big"]]),
  });
  const now = (m: string) => [{ t: 0, settings: settingsOf({ io_method: m }) }];

  it("a statement's mean faster under worker outside the spread, now sync: change to worker", () => {
    const v = lever(sizeLevers(input({ settings: now("sync"), minutes: minutes(sums(20, 100, 5), sums(20, 200, 5)) })), "io_method");
    expect(v).toMatchObject({ verdict: "change", value: "worker" });
    expect(v.figures[0].text).toMatch(
      /^SELECT count\(\*\) FROM big: pg_stat_statements 100 ms a call under worker \(20 calls\), 200 ms under sync \(20\): faster by 50% under worker$/,
    );
  });

  it("the same means within the spread: no advice", () => {
    expect(
      lever(sizeLevers(input({ settings: now("sync"), minutes: minutes(sums(20, 100, 30), sums(20, 105, 30)) })), "io_method"),
    ).toMatchObject({ verdict: "leave", value: null });
  });

  it("a statement whose runs under both methods overlap is judged by them, not by its means (a few slow calls move a mean)", () => {
    // Its runs: worker 1.9-4.0 s, sync 1.8-2.2 s, overlapping; its means 2.8 s against 2.0 s, apart.
    const timed = (i: number, ms: number) => scanRun(i, { queryId: "7", endedAt: i * 3000 + ms, lastSeen: i * 3000 + ms });
    const runs = [timed(1, 1900), timed(2, 4000), timed(3, 2500), timed(11, 1800), timed(12, 2200), timed(13, 2000)];
    const settings = [
      { t: 0, settings: settingsOf({ io_method: "worker" }) },
      { t: 30_000, settings: settingsOf({ io_method: "sync" }) },
      { t: 60_000, settings: settingsOf({ io_method: "worker" }) },
    ];
    const v = lever(sizeLevers(input({ runs, settings, minutes: minutes(sums(20, 2800, 300), sums(20, 2000, 100)) })), "io_method");
    expect(v).toMatchObject({ verdict: "leave", now: "worker", value: null });
    expect(v.figures.map((f) => f.text).join("; ")).toMatch(/pg_stat_statements .* faster by \d+% under sync/);
  });
});
