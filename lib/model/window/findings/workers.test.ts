// The io workers rule (PostgreSQL 18, io_workers): saturation is how often
// every alive worker was full while backends waited on them, 1 of 1 counts,
// and never "not saturated" once every worker was seen busy (issue 19).
import { describe, expect, it } from "vitest";
import { run, target, tick } from "../../../../test/support/fixtures";
import type { Tick } from "../../../schemas/tick";
import { workersLever } from "../major";
import { toSettings } from "../settings";
import { computeFindings, type FindingsInput } from "./index";
import { busyWorkers, idleWorkers } from "./cases";
import { queueEvidence, workerLoad } from "./workers";

const NOW = 100_000;
const row = (name: string, setting: string) => ({
  name,
  setting,
  unit: null,
  source: "default",
  pending_restart: false,
  enumvals: null,
  vartype: "string",
});
const settings = toSettings([
  row("io_method", "worker"),
  row("io_workers", "1"),
  row("effective_io_concurrency", "16"),
  row("block_size", "8192"),
]);
const WAITING = { "IO:AioIoCompletion": 4 };

/** 50 ticks over the last 5 s; the first `full` of them with every worker busy and backends waiting, the rest idle. */
function load(alive: number, full: number, over: (i: number) => Parameters<typeof tick>[2] = () => ({})): Tick[] {
  return Array.from({ length: 50 }, (_, i) =>
    tick(i + 1, NOW - 5000 + i * 100, {
      workers: { configured: alive, alive, busy: i < full ? alive : 0 },
      waits: i < full ? WAITING : { CPU: 4 },
      ...over(i),
    }),
  );
}

/** Four cold scans reading asynchronously. */
const scans = [1, 2, 3, 4].map((pid) =>
  run({
    id: `${pid}:1`,
    pid,
    query: `SELECT count(*) FROM t${pid}`,
    startedAt: NOW - 5000,
    samples: 50,
    aioReadSamples: 50,
    aioSamples: 45,
    asyncSamples: 45,
    aioWaitSamples: 30,
    ioWaitSamples: 30,
    cpuSamples: 20,
    maxInFlight: 8,
    sumInFlight: 300,
    asyncReadBytes: 126_000,
    verdict: "async",
  }),
);

const input = (recent: Tick[], runs = scans): FindingsInput => ({
  now: NOW,
  target: target(),
  settings,
  restarts: [],
  statements: [],
  runs,
  recent,
});
const workersFindings = (i: FindingsInput) => computeFindings(i).findings.filter((f) => f.rule === "workers_queue");
const allText = (i: FindingsInput) =>
  computeFindings(i)
    .findings.map((f) => f.text)
    .join("\n");

describe("workerLoad", () => {
  it.each<[string, Tick[], string, number]>([
    ["1 of 1 busy throughout, backends waiting: the queue", load(1, 50), "queue", 1],
    ["1 of 1 busy in 35% of the samples: the queue part of the time", load(1, 17), "partial", 0.34],
    ["1 of 1 busy in 2 samples of 50: too seldom", load(1, 2), "none", 0.04],
    ["3 of 3 busy throughout but nobody waiting on them: not a queue", load(3, 50, () => ({ waits: { CPU: 3 } })), "none", 0],
    // The one worker reads idle between two reads (IoWorkerMain) while reads wait for it in pg_aios.
    [
      "the worker caught between reads, reads queued for it: still full",
      load(1, 50, (i) => ({ workers: { alive: 1, busy: i % 2 }, aio: { byState: { SUBMITTED: 6 } } })),
      "queue",
      1,
    ],
    // ...and with nothing queued in pg_aios (or it not read): one idle-looking sample between two full ones, backends still waiting.
    [
      "the worker caught between reads, nothing queued seen: bridged",
      load(1, 50, (i) => ({ workers: { alive: 1, busy: i % 5 === 2 ? 0 : 1 } })),
      "queue",
      1,
    ],
    ["idle in two samples running: not bridged", load(1, 50, (i) => ({ workers: { alive: 1, busy: i % 5 < 2 ? 0 : 1 } })), "partial", 0.6],
  ])("%s", (_, ticks, level, share) => {
    const w = workerLoad(ticks);
    expect(w.level).toBe(level);
    expect(w.saturatedShare).toBeCloseTo(share, 2);
  });

  it("needs enough samples before it judges", () => {
    expect(workerLoad(load(1, 50).slice(0, 4)).level).toBe("none");
  });

  it("counts the io workers alive now, not the most ever seen (io_workers lowered in the window)", () => {
    const ticks = load(1, 50, (i) => (i < 10 ? { workers: { alive: 3, busy: 1 } } : {}));
    expect(workerLoad(ticks).alive).toBe(1);
  });

  it("a single submission queue wait does not make the workers the queue", () => {
    expect(workerLoad(load(3, 0, (i) => (i === 7 ? { waits: { "LWLock:AioWorkerSubmissionQueue": 1 } } : {}))).level).toBe("none");
  });
});

describe("the finding", () => {
  it("one io worker behind four cold scans: the cause said once, with its evidence, the lever and the queries it holds back", () => {
    const found = workersFindings(input(load(1, 50, () => ({ aio: { byState: { SUBMITTED: 12 } } }))));
    // every running scan points at the cause; the server's line carries the evidence, once
    expect(found.filter((x) => x.pid).map((x) => x.pid)).toEqual([1, 2, 3, 4]);
    const server = found.find((x) => !x.runId)!;
    expect(server.severity).toBe("act");
    expect(server.glance).toMatchObject({
      now: "io workers are the queue (100% of the last 5 s)",
      lever: "raise io_workers (now 1)",
      holds: [1, 2, 3, 4],
    });
    expect(server.text).toMatch(
      /full while backends waited on them in 100% of the samples of the last 5 s \(1 of 1 io worker busy in 100%; backends waiting on their reads \(IO:AioIoCompletion\) in 100%; more reads submitted than io workers \(queued for one\) in 100%\)\. Raise io_workers \(now 1; a reload applies it\) and measure again/,
    );
    const f = found[0];
    expect(f.severity).toBe("act");
    expect(f.glance).toMatchObject({ lever: "raise io_workers (now 1)" });
    // the run's sentence names the cause and the lever, not the evidence again
    expect(f.text).toMatch(
      /the io workers are the queue \(the io workers finding\): raise io_workers \(now 1; a reload applies it\) and measure again/,
    );
    expect(f.text).not.toMatch(/busy in 100%/);
    expect(f.evidence).toMatchObject({ level: "queue", ioWorkers: 1, saturatedShare: 1, allBusyShare: 1 });
  });

  it("partly saturated: a note of its own, how often, and the same lever", () => {
    const found = workersFindings(input(load(1, 17)));
    const [f] = found;
    expect(f.severity).toBe("note");
    expect(f.text).toMatch(
      /the io workers are the queue part of the time \(the io workers finding\): raise io_workers \(now 1; a reload applies it\)/,
    );
    expect(found.find((x) => !x.runId)?.text).toMatch(
      /full while backends waited on them in 34% of the samples of the last 5 s \(1 of 1 io worker busy in 34%/,
    );
  });

  it("without a slow run, the server says it, the same evidence and lever", () => {
    const w = workerLoad(load(1, 17));
    const [f] = workersFindings(input(load(1, 17), []));
    expect(f.text).toBe(
      `The io workers are the queue part of the time: ${queueEvidence(w)}. R${workersLever(settings, w.alive).slice(1)} and measure again.`,
    );
  });

  it.each([0, 1, 2, 5, 10, 17, 30, 50])("never says 'not saturated' with 1 of 1 busy (in %i samples of 50)", (full) => {
    const text = allText(input(load(1, full, (i) => (i === 0 ? { workers: { alive: 1, busy: 1 } } : {}))));
    expect(text).not.toMatch(/not saturated/);
    expect(text).toMatch(/1 of 1 io worker busy in \d+%/);
  });

  it("too seldom full: the run's sentence says how often, not that they were never busy", () => {
    const f = computeFindings(input(load(1, 2))).findings.find((x) => x.rule === "async_reads");
    expect(f?.text).toMatch(
      /1 of 1 io worker busy in 4% of the samples of the last 5 s, full while backends waited on them in 4%: too seldom to be its queue/,
    );
  });
});

describe("workerLoad over the findings' cases", () => {
  it("needs enough samples before it calls the io workers the queue", () => {
    expect(workerLoad(busyWorkers.slice(0, 4)).saturated).toBe(false);
    expect(workerLoad(busyWorkers).saturated).toBe(true);
    expect(workerLoad(idleWorkers)).toMatchObject({ saturated: false, maxBusy: 1, alive: 3 });
  });
});
