import { describe, expect, it } from "vitest";
import { run, target, tick } from "../../../../test/support/fixtures";
import type { Settings } from "../../../schemas/settings";
import type { Tick } from "../../../schemas/tick";
import { toSettings } from "../settings";
import { computeFindings, type FindingsInput } from "./index";

const NOW = 100_000;
const row = (name: string, setting: string, unit: string | null = null) => ({
  name,
  setting,
  unit,
  source: "default",
  pending_restart: false,
  enumvals: null,
  vartype: "integer",
});
/** A 19 server: no io_workers, a pool of io_min_workers..io_max_workers. */
const pg19 = (min: number, max: number, method = "worker"): Settings =>
  toSettings([
    row("io_method", method),
    row("io_min_workers", String(min)),
    row("io_max_workers", String(max)),
    row("io_worker_idle_timeout", "60000", "ms"),
    row("io_worker_launch_interval", "100", "ms"),
    row("effective_io_concurrency", "16"),
    row("block_size", "8192"),
  ]);

/** 50 ticks over the last 5 s; `each(i)` shapes tick i's workers. */
/** Backends wait on their reads in every sample: every worker busy is then a full pool (workers.ts). */
function ticks(each: (i: number) => Partial<Tick["workers"]>): Tick[] {
  return Array.from({ length: 50 }, (_, i) =>
    tick(i + 1, NOW - 5000 + i * 100, { workers: { configured: 2, alive: 2, busy: 0, ...each(i) }, waits: { "IO:AioIoCompletion": 2 } }),
  );
}

/** All busy throughout; alive from `from` to `to`, a launch at each step. */
function growing(from: number, to: number, max: number): Tick[] {
  return ticks((i) => {
    const alive = Math.min(to, from + Math.floor(i / 10));
    const prev = Math.min(to, from + Math.floor((i - 1) / 10));
    return { max, alive, busy: alive, ...(i > 0 && alive > prev ? { launched: alive - prev } : {}) };
  });
}

const scan = () =>
  run({
    id: "42:60000",
    pid: 42,
    query: "SELECT count(*) FROM t",
    startedAt: NOW - 40_000,
    samples: 400,
    aioReadSamples: 400,
    cpuSamples: 200,
    aioWaitSamples: 160,
    ioWaitSamples: 160,
    aioSamples: 340,
    maxInFlight: 5,
    sumInFlight: 1200,
    asyncReadBytes: 126_000,
    verdict: "async",
  });

function findings(over: Partial<FindingsInput>) {
  const input: FindingsInput = {
    now: NOW,
    target: target({ postmasterStart: NOW - 3_600_000 }),
    settings: pg19(2, 8),
    restarts: [],
    statements: [],
    runs: [],
    recent: [],
    ...over,
  };
  return computeFindings(input).findings;
}

const texts = (f: ReturnType<typeof findings>) => f.map((x) => x.text).join("\n");

describe("19's io worker pool", () => {
  it("at io_max_workers and saturated: raise io_max_workers, never io_workers", () => {
    const f = findings({ settings: pg19(1, 1), recent: ticks(() => ({ configured: 1, max: 1, alive: 1, busy: 1 })) });
    const queue = f.find((x) => x.rule === "workers_queue");
    expect(queue?.severity).toBe("act");
    expect(queue?.text).toMatch(
      /^The io worker pool is at its maximum \(1\) and saturated: raise io_max_workers \(now 1; a reload applies it\) and measure again\./,
    );
    expect(texts(f)).not.toMatch(/io_workers|NaN|undefined/);
  });

  it("a running scan's finding names io_max_workers as the lever when the pool is at its maximum", () => {
    const f = findings({ settings: pg19(1, 1), runs: [scan()], recent: ticks(() => ({ configured: 1, max: 1, alive: 1, busy: 1 })) });
    const mine = f.find((x) => x.runId);
    expect(mine?.rule).toBe("workers_queue");
    expect(mine?.text).toMatch(/the pool is at its maximum: raise io_max_workers \(now 1; a reload applies it\) and measure again/);
    expect(texts(f)).not.toMatch(/io_workers|NaN|undefined/);
  });

  it("growing below its maximum, every worker busy: it is growing and not the limit", () => {
    const recent = growing(2, 4, 8);
    const f = findings({ runs: [scan()], recent });
    expect(f.find((x) => x.rule === "workers_queue")).toBeUndefined();
    const grow = f.find((x) => x.rule === "pool_growing");
    expect(grow?.severity).toBe("info");
    expect(grow?.text).toMatch(
      /The io worker pool is growing: 2 io workers launched in the last 5 s \(2 -> 4, of up to io_max_workers = 8\).*not the limit/,
    );
    expect(f.find((x) => x.runId)?.text).toMatch(/the io worker pool is growing \(2 -> 4 of up to 8\) and is not the limit/);
    expect(texts(f)).not.toMatch(/io_workers|NaN|undefined/);
  });

  describe("grown from io_min_workers after backends waited for the workers: the first reads waited for workers to start", () => {
    const recent = ticks((i) =>
      i < 10 ? { max: 8, alive: 2, busy: 2 } : { max: 8, alive: 4, busy: 3, ...(i === 10 ? { launched: 2 } : {}) },
    ).map((t, i) => (i < 10 ? { ...t, waits: { "IO:AioIoCompletion": 3 } } : t));
    const firstLaunch = recent[10].t;

    it("had shrunk, when a worker was seen exiting before the burst", () => {
      const grow = findings({ recent, poolExitAt: firstLaunch - 60_000 }).find((x) => x.rule === "pool_growing");
      expect(grow?.text).toMatch(
        /It had shrunk to io_min_workers = 2 before the burst: the first reads waited for workers to start \(all 2 busy with backends waiting on IO:AioIoCompletion in 10 samples before the first launch\); a higher io_min_workers or io_worker_idle_timeout keeps them ready\./,
      );
      expect(grow?.evidence).toMatchObject({ waitedAtMin: 10, shrunkBefore: true });
    });

    it.each([
      ["no exit seen since the server started", null],
      ["the only exit after the burst began", firstLaunch + 100],
    ])("was at its minimum, never said to have shrunk: %s", (_, poolExitAt) => {
      const grow = findings({ recent, poolExitAt }).find((x) => x.rule === "pool_growing");
      expect(grow?.text).toMatch(
        /It was at io_min_workers = 2 when the burst came: the first reads waited for workers to start \(all 2 busy with backends waiting on IO:AioIoCompletion in 10 samples before the first launch\); a higher io_min_workers keeps more ready\./,
      );
      expect(grow?.text).not.toMatch(/shrunk|io_worker_idle_timeout/);
      expect(grow?.evidence).toMatchObject({ waitedAtMin: 10, shrunkBefore: false });
    });
  });

  it("steady below its maximum: no pool finding, and the run says the pool is not the limit", () => {
    const f = findings({ runs: [scan()], recent: ticks(() => ({ max: 8, alive: 2, busy: 1 })) });
    expect(f.find((x) => x.rule === "pool_growing")).toBeUndefined();
    expect(f.find((x) => x.runId)?.text).toMatch(
      /the io worker pool runs 2 of up to 8 and is not the limit, so changing io_method or io_max_workers is unlikely to help/,
    );
  });

  it("index lookups read synchronously: said of PostgreSQL 19 on a 19 target, and of 18 on 18", () => {
    const lookups = run({
      id: "42:60000",
      pid: 42,
      query: "SELECT v FROM t WHERE id = $1",
      startedAt: NOW - 40_000,
      samples: 400,
      readWaitSamples: 300,
      syncSamples: 320,
      cpuSamples: 100,
      syncReadBytes: 8192,
      verdict: "sync",
    });
    const on = (serverVersionNum: number) =>
      findings({ target: target({ postmasterStart: NOW - 3_600_000, serverVersionNum }), runs: [lookups] }).find(
        (x) => x.rule === "sync_reads",
      )?.text;
    expect(on(190000)).toMatch(/index lookups read this way in PostgreSQL 19\): io_method and io_max_workers are not its levers/);
    expect(on(190000)).not.toMatch(/PostgreSQL 18/);
    expect(on(180006)).toMatch(/index lookups read this way in PostgreSQL 18\)/);
  });

  it("the settings sentence names the pool's bounds", () => {
    const f = findings({ recent: ticks(() => ({ max: 8 })) });
    expect(f.find((x) => x.rule === "settings_unchanged")?.text).toMatch(/io_method worker, io_min_workers 2, io_max_workers 8/);
  });

  it("18 is unchanged: io_workers is the lever", () => {
    const settings = toSettings([row("io_method", "worker"), row("io_workers", "1")]);
    const f = findings({ settings, recent: ticks(() => ({ configured: 1, alive: 1, busy: 1 })) });
    expect(f.find((x) => x.rule === "workers_queue")?.text).toMatch(
      /The io workers are the queue: full while backends waited on them in 100% of the samples of the last 5 s \(1 of 1 io worker busy in 100%.*\)\. Raise io_workers \(now 1; a reload applies it\) and measure again\./,
    );
  });
});
