import { describe, expect, it } from "vitest";
import { run, target, tick } from "../../../../test/support/fixtures";
import type { QueryRun } from "../../../schemas/runs";
import type { Settings } from "../../../schemas/settings";
import type { Tick } from "../../../schemas/tick";
import { diffSettings, toSettings } from "../settings";
import { computeFindings, type FindingsInput } from "./index";
import { workerLoad } from "./workers";

const NOW = 100_000;
const row = (name: string, setting: string, unit: string | null = null, pending = false) => ({
  name,
  setting,
  unit,
  source: "default",
  pending_restart: pending,
  enumvals: null,
  vartype: "string",
});
const settingsOf = (method = "worker", extra: ReturnType<typeof row>[] = []): Settings =>
  toSettings([
    row("io_method", method),
    row("io_workers", "3"),
    row("effective_io_concurrency", "16"),
    row("maintenance_io_concurrency", "16"),
    row("io_combine_limit", "16", "8kB"),
    row("io_max_combine_limit", "16", "8kB"),
    row("block_size", "8192"),
    ...extra,
  ]);

/** Ticks of the last 5 s, every 100 ms, each shaped by `each`. */
function ticks(each: (t: number) => Parameters<typeof tick>[2]): Tick[] {
  return Array.from({ length: 50 }, (_, i) => {
    const t = NOW - 5000 + i * 100;
    return tick(i + 1, t, each(t));
  });
}

const idleWorkers = ticks(() => ({ workers: { alive: 3, busy: 1 } }));
const busyWorkers = ticks(() => ({ workers: { alive: 3, busy: 3 }, waits: { "IO:AioIoCompletion": 2 } }));

function input(over: Partial<FindingsInput> = {}): FindingsInput {
  return {
    now: NOW,
    target: target({ postmasterStart: NOW - 3_600_000 }),
    settings: settingsOf(),
    restarts: [],
    statements: [],
    runs: [],
    recent: idleWorkers,
    ...over,
  };
}

/** A running scan of 40 s, sampled 400 times. */
function scan(over: Partial<QueryRun> = {}): QueryRun {
  return run({
    id: "42:60000",
    pid: 42,
    query: "SELECT count(*) FROM public.events WHERE payload LIKE '%zz%'",
    startedAt: NOW - 40_000,
    lastSeen: NOW,
    samples: 400,
    aioReadSamples: 400,
    cpuSamples: 240,
    ...over,
  });
}

const asyncScan = (over: Partial<QueryRun> = {}) =>
  scan({
    aioWaitSamples: 160,
    ioWaitSamples: 160,
    aioSamples: 340,
    maxInFlight: 5,
    sumInFlight: 1200,
    asyncReadBytes: 126_000,
    progress: 0.79,
    progressRelation: "public.events",
    readBlocksPerSec: 23_000,
    etaMs: 4200,
    verdict: "async",
    ...over,
  });

const runFinding = (i: FindingsInput) => computeFindings(i).findings.find((f) => f.runId);

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

describe("about the server", () => {
  const rules = (i: FindingsInput) => computeFindings(i).findings.map((f) => f.rule);

  it.each<[string, Partial<FindingsInput>, string, RegExp]>([
    [
      "down, with its error first",
      { target: target({ status: "down", statusSince: NOW - 5000, lastError: "connect ECONNREFUSED 127.0.0.1:5432" }) },
      "target_down",
      /demo is down since .*: connect ECONNREFUSED 127\.0\.0\.1:5432\. Sampling resumes by itself/,
    ],
    [
      "io workers the queue, with no slow run",
      { recent: busyWorkers },
      "workers_queue",
      /The io workers are the queue: full while backends waited on them in 100% of the samples of the last 5 s \(3 of 3 io workers busy in 100%.*\)\. Raise io_workers \(now 3; a reload applies it\) and measure again\./,
    ],
    [
      "a submission queue wait",
      { recent: ticks(() => ({ workers: { alive: 3, busy: 2 }, waits: { "LWLock:AioWorkerSubmissionQueue": 1 } })) },
      "workers_queue",
      /backends waited for the submission queue \(LWLock:AioWorkerSubmissionQueue\) in 50 samples/,
    ],
    [
      "a setting waits for a restart",
      { settings: settingsOf("worker", [row("io_method", "worker", null, true)]) },
      "restart_pending",
      /^Waiting for a restart: io_method worker in force; .*PostgreSQL keeps pending_restart set after a change is undone/,
    ],
    [
      "io_combine_limit clamped",
      { settings: settingsOf("worker", [row("io_combine_limit", "32", "8kB")]) },
      "combine_clamped",
      /io_combine_limit 256 kB is above io_max_combine_limit 128 kB: it is clamped silently, reads are combined up to 128 kB only/,
    ],
    [
      "no restart known",
      {},
      "settings_unchanged",
      /^Server started \d\d:\d\d:\d\d, before inflight's history of this server begins: what that start changed is not known; none waits for a restart\. io_method worker, io_workers 3\.$/,
    ],
    [
      "a restart that changed nothing",
      { restarts: [{ at: NOW - 3_600_000, seenAt: NOW - 60_000, changes: [] }] },
      "settings_unchanged",
      /^Server started \d\d:\d\d:\d\d: that restart changed no I\/O setting; none waits for a restart\. io_method worker, io_workers 3\.$/,
    ],
    [
      "a restart in force",
      {
        target: target({ postmasterStart: NOW - 60_000 }),
        settings: settingsOf("sync"),
        restarts: [{ at: NOW - 60_000, seenAt: NOW - 59_000, changes: [{ name: "io_method", before: "worker", after: "sync" }] }],
        recent: ticks(() => ({ workers: { alive: 0, busy: 0, configured: 0 } })),
      },
      "restart_applied",
      /^Server started \d\d:\d\d:\d\d: that restart changed io_method worker -> sync, in force \(0 io workers; reads now synchronous\); none waits for a restart\.$/,
    ],
    [
      "io_uring submission waits",
      { settings: settingsOf("io_uring"), recent: ticks(() => ({ workers: { alive: 0 }, waits: { "IO:AioIoUringSubmit": 2, CPU: 1 } })) },
      "io_uring_submit",
      /io_uring submission waits dominate: .*IO:AioIoUringSubmit .* in 67% of the samples/,
    ],
    [
      "a collection aspect failing",
      {
        target: target({
          aspects: [
            {
              aspect: "stat_io",
              state: "failing",
              since: NOW - 1000,
              lastError: "permission denied for view pg_stat_io",
              note: null,
              lastOkAt: null,
            },
          ],
        }),
      },
      "collection_degraded",
      /pg_stat_io cannot be read since .*: permission denied for view pg_stat_io\. The other figures are still read\./,
    ],
  ])("%s -> %s", (_, over, rule, text) => {
    const f = computeFindings(input(over)).findings.find((x) => x.rule === rule);
    expect(f?.text).toMatch(text);
  });

  it("never blames io workers under io_uring", () => {
    expect(rules(input({ settings: settingsOf("io_uring"), recent: busyWorkers, runs: [asyncScan()] }))).not.toContain("workers_queue");
    expect(runFinding(input({ settings: settingsOf("io_uring"), runs: [asyncScan()] }))?.text).toMatch(
      /io_uring submits them from the backend itself/,
    );
  });

  it("a restart whose setting is not in force is something to act on", () => {
    const f = computeFindings(
      input({
        target: target({ postmasterStart: NOW - 1 }),
        settings: settingsOf("worker"),
        restarts: [{ at: NOW - 1, seenAt: NOW, changes: [{ name: "io_method", before: "worker", after: "io_uring" }] }],
      }),
    ).findings.find((x) => x.rule === "restart_applied");
    expect(f?.glance.now).toMatch(/^Restarted \d\d:\d\d:\d\d: io_method worker→io_uring, not in force$/);
    expect(f?.severity).toBe("act");
    expect(f?.text).toMatch(/but io_method reads worker now: check the server log/);
  });

  it("after an upgrade 18 -> 19: the major moved and the pool's settings as 19 has them, never 18's io_workers", () => {
    const before = settingsOf("worker", [row("server_version", "18.6")]);
    const pool = [
      row("io_min_workers", "2"),
      row("io_max_workers", "8"),
      row("io_worker_idle_timeout", "60000", "ms"),
      row("io_worker_launch_interval", "100", "ms"),
    ];
    // What 18 and 19 share is the same on both sides (settingsOf's): io_workers and the pool's are what differ.
    const shared = [
      row("effective_io_concurrency", "16"),
      row("maintenance_io_concurrency", "16"),
      row("io_combine_limit", "16", "8kB"),
      row("io_max_combine_limit", "16", "8kB"),
      row("block_size", "8192"),
    ];
    const after = toSettings([row("io_method", "worker"), ...pool, ...shared, row("server_version", "19rc1 (Debian 19~rc1-1)")]);
    const restarts = [{ at: NOW - 60_000, seenAt: NOW - 59_000, changes: diffSettings(before, after) }];
    expect(restarts[0].changes).toContainEqual({ name: "io_workers", before: "3", after: null });
    const f = computeFindings(
      input({
        target: target({ postmasterStart: NOW - 60_000 }),
        settings: after,
        restarts,
        recent: ticks(() => ({ workers: { configured: 2, max: 8, alive: 2, busy: 0 } })),
      }),
    ).findings.find((x) => x.rule === "restart_applied");
    expect(f?.severity).toBe("info");
    expect(f?.text).toMatch(
      /^Server started \d\d:\d\d:\d\d: that restart changed PostgreSQL 18\.6 -> 19rc1 \(19 sizes its io workers itself: io_min_workers 2, io_max_workers 8, io_worker_idle_timeout 1 min, io_worker_launch_interval 100 ms\), in force \(2 io workers alive; reads handed to io workers\); none waits for a restart\.$/,
    );
    expect(f?.text).not.toMatch(/io_workers|\(unset\)|NaN|undefined/);
  });

  it("a minor update that changed no I/O setting says the version moved", () => {
    const changes = [{ name: "server_version", before: "18.4", after: "18.6" }];
    const f = computeFindings(
      input({ target: target({ postmasterStart: NOW - 60_000 }), restarts: [{ at: NOW - 60_000, seenAt: NOW - 59_000, changes }] }),
    ).findings.find((x) => x.rule === "settings_unchanged");
    expect(f?.text).toMatch(
      /^Server started \d\d:\d\d:\d\d: that restart changed PostgreSQL 18\.4 -> 18\.6 and no I\/O setting; none waits for a restart\. io_method worker, io_workers 3\.$/,
    );
  });

  it("a finding per server start: a new restart's line holds from when it was seen, not from the one before", () => {
    const first = { at: NOW - 60_000, seenAt: NOW - 59_000, changes: [] };
    const second = { at: NOW - 13_000, seenAt: NOW - 12_000, changes: [] };
    const id = (restarts: (typeof first)[], start: number) =>
      computeFindings(input({ target: target({ postmasterStart: start }), restarts })).findings.find((x) => x.rule === "settings_unchanged")
        ?.id;
    expect(id([first], first.at)).not.toBe(id([first, second], second.at));
  });

  it("names no restart of an earlier start as this one's", () => {
    const f = computeFindings(
      input({
        restarts: [{ at: NOW - 7_200_000, seenAt: NOW - 7_000_000, changes: [{ name: "io_method", before: "sync", after: "worker" }] }],
      }),
    ).findings.find((x) => x.rule === "settings_unchanged");
    expect(f?.text).toMatch(/what that start changed is not known/);
  });

  it("puts the most severe first, the target's outage before everything", () => {
    const { findings } = computeFindings(
      input({ target: target({ status: "down", lastError: "x" }), settings: settingsOf("worker", [row("io_combine_limit", "32", "8kB")]) }),
    );
    expect(findings[0].rule).toBe("target_down");
    const ranks = findings.map((f) => ["act", "warn", "info"].indexOf(f.severity));
    expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
  });
});

describe("workerLoad", () => {
  it("needs enough samples before it calls the io workers the queue", () => {
    expect(workerLoad(busyWorkers.slice(0, 4)).saturated).toBe(false);
    expect(workerLoad(busyWorkers).saturated).toBe(true);
    expect(workerLoad(idleWorkers)).toMatchObject({ saturated: false, maxBusy: 1, alive: 3 });
  });
});
