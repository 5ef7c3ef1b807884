// The sizing of the io workers: 18's io_workers, 19's pool, across a change of their settings.
import { describe, expect, it } from "vitest";
import type { LabResult } from "../../../schemas/lab";
import { sizeLevers } from "./index";
import { input, lever, pool, scanRun, seconds, settingsOf } from "./cases";

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
