// The findings' cases as the tests build them: a server's settings, its
// last seconds of ticks, a running scan (sync or async), the findings input.
import { run, target, tick } from "../../../../test/support/fixtures";
import type { QueryRun } from "../../../schemas/runs";
import type { Settings } from "../../../schemas/settings";
import type { Tick } from "../../../schemas/tick";
import { toSettings } from "../settings";
import { computeFindings, type FindingsInput } from "./index";

export const NOW = 100_000;
export const row = (name: string, setting: string, unit: string | null = null, pending = false) => ({
  name,
  setting,
  unit,
  source: "default",
  pending_restart: pending,
  enumvals: null,
  vartype: "string",
});
export const settingsOf = (method = "worker", extra: ReturnType<typeof row>[] = []): Settings =>
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
export function ticks(each: (t: number) => Parameters<typeof tick>[2]): Tick[] {
  return Array.from({ length: 50 }, (_, i) => {
    const t = NOW - 5000 + i * 100;
    return tick(i + 1, t, each(t));
  });
}

export const idleWorkers = ticks(() => ({ workers: { alive: 3, busy: 1 } }));
export const busyWorkers = ticks(() => ({ workers: { alive: 3, busy: 3 }, waits: { "IO:AioIoCompletion": 2 } }));

export function input(over: Partial<FindingsInput> = {}): FindingsInput {
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
export function scan(over: Partial<QueryRun> = {}): QueryRun {
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

export const asyncScan = (over: Partial<QueryRun> = {}) =>
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

export const runFinding = (i: FindingsInput) => computeFindings(i).findings.find((f) => f.runId);
