// The findings about the server as a whole: the io workers, io_uring, restarts and upgrades, the order.
import { describe, expect, it } from "vitest";
import { target } from "../../../../test/support/fixtures";
import { diffSettings, toSettings } from "../settings";
import { computeFindings, type FindingsInput } from "./index";
import { NOW, asyncScan, busyWorkers, input, row, runFinding, settingsOf, ticks } from "./cases";

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
    const ranks = findings.map((f) => ["act", "note", "info"].indexOf(f.severity));
    expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
  });
});
