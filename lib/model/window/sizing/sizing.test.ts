// The sizing model's verdicts, lever by lever (issue 41): each from a range
// built to hold exactly the evidence that verdict needs.
import { describe, expect, it } from "vitest";
import { run } from "../../../../test/support/fixtures";
import { emptyLoad } from "../../history/second-load";
import type { LabResult } from "../../../schemas/lab";
import type { SecondLoad } from "../../../schemas/history";
import type { QueryRun } from "../../../schemas/runs";
import type { SizingLever } from "../../../schemas/enums";
import { toSettings } from "../settings";
import { sizeLevers, type SizingInput } from "./index";

const row = (name: string, setting: string) => ({
  name,
  setting,
  unit: null,
  source: "default",
  pending_restart: false,
  enumvals: null,
  vartype: "string",
});
const DEFAULTS: Record<string, string> = {
  io_method: "worker",
  io_workers: "3",
  effective_io_concurrency: "16",
  maintenance_io_concurrency: "16",
  io_combine_limit: "16",
  io_max_combine_limit: "16",
};
const settingsOf = (over: Record<string, string> = {}) => toSettings(Object.entries({ ...DEFAULTS, ...over }).map(([n, v]) => row(n, v)));
const POOL = { io_workers: "", io_min_workers: "1", io_max_workers: "2" };
const pool = (over: Record<string, string> = {}) => {
  const s = settingsOf({ ...POOL, ...over });
  delete s.io_workers;
  return s;
};

/** `n` seconds from t = 0, each with `load`. */
const seconds = (n: number, load: Partial<SecondLoad>, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ t: from + i * 1000, load: { ...emptyLoad(), samples: 10, ...load } }));
const scanRun = (i: number, over: Partial<QueryRun> = {}): QueryRun =>
  run({
    id: `${i}`,
    query: "SELECT count(*) FROM t",
    queryId: "42",
    startedAt: i * 3000,
    endedAt: i * 3000 + 2000,
    lastSeen: i * 3000 + 2000,
    samples: 20,
    aioWaitSamples: 12,
    aioSamples: 18,
    aioReadSamples: 20,
    sumInFlight: 18 * 10,
    maxInFlight: 14,
    ...over,
  });
const input = (over: Partial<SizingInput> = {}): SizingInput => ({
  from: 0,
  to: 60_000,
  seconds: seconds(60, {}),
  runs: [],
  settings: [{ t: 0, settings: settingsOf() }],
  labs: [],
  ...over,
});
const lever = (levers: ReturnType<typeof sizeLevers>, name: SizingLever) => levers.find((l) => l.lever === name)!;

describe("the io workers (18)", () => {
  it("one io worker full in most of the time backends read: raise, to the backends waiting at once at the peaks, by reload", () => {
    const i = input({
      seconds: seconds(30, { reading: 10, waiting: 10, full: 7, maxBusy: 1, peakWaiting: 4, peakSubmitted: 9 }),
      settings: [{ t: 0, settings: settingsOf({ io_workers: "1" }) }],
      runs: [scanRun(1)],
    });
    const v = lever(sizeLevers(i), "io_workers");
    expect(v).toMatchObject({ verdict: "raise", now: "1", value: "4", applies: "reload" });
    expect(v.figures[0].text).toBe("io workers full in 70% of the 30 s in which backends read through them (210 of 300 samples)");
    expect(v.statements).toEqual([{ queryId: "42", query: "SELECT count(*) FROM t", runs: 1, totalMs: 2000 }]);
  });

  it("the value is capped at four times now and at 32", () => {
    const i = (now: string) =>
      input({
        seconds: seconds(30, { reading: 10, full: 9, peakWaiting: 64 }),
        settings: [{ t: 0, settings: settingsOf({ io_workers: now }) }],
      });
    expect(lever(sizeLevers(i("2")), "io_workers").value).toBe("8");
    expect(lever(sizeLevers(i("12")), "io_workers").value).toBe("32");
  });

  it("full under the threshold: leave, with the share that says so", () => {
    const v = lever(sizeLevers(input({ seconds: seconds(30, { reading: 10, full: 1, maxBusy: 3 }) })), "io_workers");
    expect(v.verdict).toBe("leave");
    expect(v.reason).toMatch(/queue in 10% of the time/);
  });

  it("never more than two busy of eight, never full: lower toward the default", () => {
    const v = lever(
      sizeLevers(
        input({ seconds: seconds(30, { reading: 10, maxBusy: 2 }), settings: [{ t: 0, settings: settingsOf({ io_workers: "8" }) }] }),
      ),
      "io_workers",
    );
    expect(v).toMatchObject({ verdict: "lower", value: "3", applies: "reload" });
  });

  it("an idle server: leave every lever, with the figures", () => {
    const levers = sizeLevers(input());
    expect(levers.map((l) => [l.lever, l.verdict])).toEqual([
      ["io_workers", "leave"],
      ["effective_io_concurrency", "leave"],
      ["maintenance_io_concurrency", "leave"],
      ["io_method", "leave"],
      ["io_combine_limit", "leave"],
    ]);
    expect(lever(levers, "io_workers").figures[0].text).toBe(
      "io workers full in 0% of the 0 ms in which backends read through them (0 of 0 samples)",
    );
  });

  it("no sample, or too little: not enough evidence for the load-based levers", () => {
    expect(lever(sizeLevers(input({ seconds: [] })), "io_workers").verdict).toBe("unknown");
    expect(lever(sizeLevers(input({ seconds: seconds(5, { reading: 10, full: 10 }) })), "io_workers").verdict).toBe("unknown");
    expect(lever(sizeLevers(input({ settings: [] })), "io_workers").verdict).toBe("unknown");
  });

  it("io_method sync: no io workers, leave", () => {
    expect(lever(sizeLevers(input({ settings: [{ t: 0, settings: settingsOf({ io_method: "sync" }) }] })), "io_workers").reason).toMatch(
      /io_method is sync/,
    );
  });

  it("cites the labs that measured the lever", () => {
    const lab: LabResult = {
      at: 5,
      lever: "io_workers",
      rows: [
        { value: "1", runs: 3, medianMs: 5500, minMs: 5300, maxMs: 5700, readShare: null },
        { value: "3", runs: 3, medianMs: 4400, minMs: 4200, maxMs: 4700, readShare: null },
      ],
      concurrency: 4,
      rounds: 3,
      query: "seq",
      sql: "",
      ioMethod: "worker",
      serverVersion: null,
    };
    const v = lever(sizeLevers(input({ labs: [lab] })), "io_workers");
    expect(v.lab).toEqual([
      { at: 5, text: "measured here: io_workers 1 -> 3: 5.5 s -> 4.4 s (5.3 s-5.7 s, 4.2 s-4.7 s), 3 rounds each, 4 sessions" },
    ]);
  });
});

describe("the pool (19)", () => {
  it("at io_max_workers and full: raise io_max_workers; io_min_workers left while the pool does not churn", () => {
    const levers = sizeLevers(
      input({
        seconds: seconds(30, { reading: 10, full: 8, atMax: 10, fullAtMax: 8, maxAlive: 2, peakWaiting: 6, launched: 0 }),
        settings: [{ t: 0, settings: pool() }],
      }),
    );
    expect(lever(levers, "io_max_workers")).toMatchObject({ verdict: "raise", now: "2", value: "6", applies: "reload" });
    expect(lever(levers, "io_min_workers").verdict).toBe("leave");
    expect(levers.some((l) => l.lever === "io_workers")).toBe(false);
  });

  it("full below its maximum: the pool grows, leave", () => {
    const v = lever(
      sizeLevers(
        input({
          seconds: seconds(30, { reading: 10, full: 8, atMax: 0, maxAlive: 3 }),
          settings: [{ t: 0, settings: pool({ io_max_workers: "8" }) }],
        }),
      ),
      "io_max_workers",
    );
    expect(v.verdict).toBe("leave");
  });

  it("launching and retiring over and over: raise io_min_workers to the workers of the median second with reads", () => {
    const v = lever(
      sizeLevers(
        input({
          seconds: seconds(30, { reading: 5, maxAlive: 4, launched: 1, exited: 1 }),
          settings: [{ t: 0, settings: pool({ io_max_workers: "8" }) }],
        }),
      ),
      "io_min_workers",
    );
    expect(v).toMatchObject({ verdict: "raise", now: "1", value: "4" });
  });
});

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
});

describe("a range across a change of the io workers", () => {
  it("judges the io workers only over the seconds under the settings in force", () => {
    const before = seconds(30, { reading: 10, full: 9, peakWaiting: 4 });
    const after = seconds(30, { reading: 10, full: 0, maxBusy: 2 }, 30_000);
    const settings = [
      { t: 0, settings: settingsOf({ io_workers: "1" }) },
      { t: 30_000, settings: settingsOf({ io_workers: "3" }) },
    ];
    const v = lever(sizeLevers(input({ seconds: [...before, ...after], settings })), "io_workers");
    expect(v).toMatchObject({ verdict: "leave", now: "3" });
    expect(v.reason).toMatch(
      /^under the io worker settings in force \(30 s of this range ran under others, left out\): the io workers were the queue in 0%/,
    );
  });

  it("counts the seconds under the settings in force before and after a stretch under others (a lab's run of another value)", () => {
    const first = seconds(20, { reading: 10, full: 9, peakWaiting: 4 });
    const lab = seconds(10, { reading: 10, full: 0, maxBusy: 1 }, 20_000);
    const last = seconds(20, { reading: 10, full: 9, peakWaiting: 4 }, 30_000);
    const settings = [
      { t: 0, settings: settingsOf({ io_workers: "3" }) },
      { t: 20_000, settings: settingsOf({ io_workers: "1" }) },
      { t: 30_000, settings: settingsOf({ io_workers: "3" }) },
    ];
    const v = lever(sizeLevers(input({ seconds: [...first, ...lab, ...last], settings })), "io_workers");
    expect(v).toMatchObject({ verdict: "raise", now: "3" });
    expect(v.reason).toMatch(/^under the io worker settings in force \(10 s of this range ran under others, left out\)/);
    expect(v.figures[0].text).toMatch(/\(360 of 400 samples\)/);
  });
});
