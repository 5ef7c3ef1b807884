// The findings about each running query: one rule a case, as the page says them.
import { describe, expect, it } from "vitest";
import { target } from "../../../../test/support/fixtures";
import { computeFindings, type FindingsInput } from "./index";
import { NOW, asyncScan, busyWorkers, input, runFinding, scan, settingsOf } from "./cases";

describe("per running query, one rule a case", () => {
  it.each<[string, Partial<FindingsInput>, string, RegExp]>([
    [
      "async reads, workers not saturated",
      { runs: [asyncScan()] },
      "async_reads",
      /Longest left: pid 42 `SELECT count\(\*\).*` on public\.events, 40 s, 79% scanned \(about 4\.2 s left at 180 MB\/s\); waiting on reads in 160 of 400 samples \(40%: async 160, synchronous 0\); its reads are asynchronous .*io workers never all busy \(at most 1 of 3\), so changing io_method or io_workers is unlikely to help\./,
    ],
    // async from its IO:Aio* waits alone, no handle of its own caught in flight: said as the waits, as the row says it
    [
      "async reads seen only as waits",
      { runs: [asyncScan({ aioSamples: 0, maxInFlight: 0, sumInFlight: 0 })] },
      "async_reads",
      /its reads are asynchronous \(waiting on async reads in 160 of 400 samples, none of its own in flight in the 400 that read pg_aios\)/,
    ],
    [
      "reads not the bottleneck",
      { runs: [scan({ aioWaitSamples: 20, aioSamples: 100, verdict: "async" })] },
      "reads_not_bottleneck",
      /reads are not its bottleneck \(on CPU in 60% of samples.*no I\/O setting will help much/,
    ],
    [
      "index lookups read synchronously",
      { runs: [scan({ readWaitSamples: 300, syncSamples: 320, cpuSamples: 100, syncReadBytes: 8192, verdict: "sync" })] },
      "sync_reads",
      /waiting on reads in 300 of 400 samples \(75%: async 0, synchronous 300\); its reads are synchronous \(8 kB a read; index lookups read this way in PostgreSQL 18\): io_method and io_workers are not its levers; look at the plan, the index, shared_buffers/,
    ],
    // issue 19: one sample with an async handle among index lookups' synchronous ones: still synchronous, the sample named
    [
      "index lookups, one async sample among them",
      {
        runs: [
          scan({
            readWaitSamples: 300,
            syncSamples: 320,
            asyncSamples: 1,
            aioSamples: 1,
            maxInFlight: 1,
            cpuSamples: 99,
            syncReadBytes: 8192,
            verdict: "sync",
          }),
        ],
      },
      "sync_reads",
      /its reads are synchronous \(8 kB a read; an async read in flight in 1 of 400 samples that read pg_aios; index lookups/,
    ],
    [
      "io workers the queue",
      { runs: [asyncScan()], recent: busyWorkers },
      "workers_queue",
      /the io workers are the queue \(the io workers finding\): raise io_workers \(now 3; a reload applies it\) and measure again/,
    ],
    [
      "read-ahead depth pinned at effective_io_concurrency",
      { runs: [asyncScan({ maxInFlight: 16, sumInFlight: 340 * 15, aioWaitSamples: 220 })] },
      "readahead_depth",
      /read-ahead depth is the limit: 15 reads in flight on average, at effective_io_concurrency = 16.*raise effective_io_concurrency/,
    ],
    [
      "io_method = sync, a scan's combined reads",
      {
        settings: settingsOf("sync"),
        runs: [
          scan({
            readWaitSamples: 200,
            syncSamples: 200,
            syncReadBytes: 122_880,
            progress: 0.3,
            progressRelation: "public.events",
            verdict: "sync",
          }),
        ],
      },
      "io_method_sync",
      /io_method = sync: it waits for each read in turn.*keeps a scan's reads in flight, unmeasured here: measure it on a copy with the lab \(npm run lab, or the lab button of the demo\)\./,
    ],
    [
      "small reads",
      { runs: [asyncScan({ asyncReadBytes: 24_576 })] },
      "small_reads",
      /its reads are small \(24 kB on average against io_combine_limit 128 kB\): scattered blocks, little to combine/,
    ],
    [
      "too few samples to tell",
      { runs: [scan({ samples: 3, startedAt: NOW - 1500, lastSeen: NOW })] },
      "too_short",
      /too few samples to tell \(3 samples\)/,
    ],
    [
      "cached",
      {
        runs: [scan({ queryId: "7" })],
        statements: [
          {
            queryId: "7",
            query: "SELECT 1",
            calls: 3,
            totalExecTime: 900,
            readTime: 0,
            sharedBlksRead: 0,
            sharedBlksHit: 5000,
            readShare: 0,
          },
        ],
      },
      "cached",
      /shared buffers only \(pg_stat_statements: 0 blocks read, 5000 hit\)/,
    ],
  ])("%s -> %s", (_, over, rule, text) => {
    const f = runFinding(input(over));
    expect(f?.rule).toBe(rule);
    expect(f?.text).toMatch(text);
    expect(f?.runId).toBeDefined();
  });

  // Issue 40: the time left as a range while the rate is unsteady, its ends in the evidence; the row says the same words.
  it("says a wide time left as a range, and puts its ends beside the middle in the evidence", () => {
    const f = runFinding(input({ runs: [asyncScan({ etaMs: 7400, etaRangeMs: [6200, 8700] })] }));
    expect(f?.text).toMatch(/79% scanned \(6-9 s left at 180 MB\/s\)/);
    expect(f?.evidence).toMatchObject({ etaMs: 7400, etaLowMs: 6200, etaHighMs: 8700 });
    const narrow = runFinding(input({ runs: [asyncScan({ etaMs: 4200, etaRangeMs: [4000, 4400] })] }));
    expect(narrow?.text).toMatch(/79% scanned \(about 4\.2 s left at 180 MB\/s\)/);
    expect(runFinding(input({ runs: [asyncScan({ etaMs: null, etaRangeMs: null })] }))?.evidence).toMatchObject({
      etaLowMs: null,
      etaHighMs: null,
    });
  });

  it("does not judge an index-lookup run's io_method under sync: single pages stay synchronous whatever the method", () => {
    const f = runFinding(
      input({
        settings: settingsOf("sync"),
        runs: [scan({ readWaitSamples: 300, syncSamples: 300, syncReadBytes: 8192, cpuSamples: 100 })],
      }),
    );
    expect(f?.rule).not.toBe("io_method_sync");
  });

  it("says why progress cannot be seen on a server without pg_aios", () => {
    const f = runFinding(
      input({
        target: target({
          serverVersionNum: 160004,
          capabilities: { aios: false, aiosDenied: false, statIo: true, statStatements: null, readAllStats: true, role: "m" },
        }),
        runs: [scan({ readWaitSamples: 100, aioReadSamples: 0 })],
      }),
    );
    expect(f?.text).toMatch(/progress cannot be seen: PostgreSQL 16 has no pg_aios/);
  });

  it("lists the running queries with the most time left first, then those whose time left is not known, and counts those past eight", () => {
    const runs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((i) =>
      asyncScan({ id: `${i}:1`, pid: i, startedAt: NOW - i * 10_000, etaMs: i <= 5 ? i * 1000 : null }),
    );
    const { findings, moreRuns } = computeFindings(input({ runs }));
    expect(findings.filter((f) => f.runId).map((f) => f.pid)).toEqual([5, 4, 3, 2, 1, 10, 9, 8]);
    expect(moreRuns).toBe(2);
    expect(findings.find((f) => f.pid === 5)?.text).toMatch(/^Longest left/);
    expect(findings.find((f) => f.pid === 5)?.glance).toMatchObject({ progress: "79%", left: "~5.0 s" });
  });

  it("leaves out runs under a second and ended runs", () => {
    expect(
      computeFindings(input({ runs: [asyncScan({ startedAt: NOW - 500 }), asyncScan({ id: "9:9", endedAt: NOW - 10 })] })).findings.filter(
        (f) => f.runId,
      ),
    ).toEqual([]);
  });
});
