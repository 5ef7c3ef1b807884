// One sentence per slow running query: what it waits on, how far it has
// got, and which lever (io_method, io_workers, read-ahead, the plan) would
// or would not help. One rule a function, tried in order; the first that
// holds names the finding.
import type { FindingRule, FindingSeverity } from "../../../schemas/findings";
import type { QueryRun, StatementStat } from "../../../schemas/runs";
import { formatBytes } from "../../../format";
import { syncIndexMajor } from "../major";
import { verdictMinority } from "../verdict";
import { pct, type RunFigures } from "./figures";
import { NO_LEVER } from "./glance";
import { MEASURE_WITH_LAB } from "./measured";
import type { MethodEvidence } from "./method-evidence";
import {
  COMBINED_READ_BYTES,
  MIN_SAMPLES,
  READ_WAIT_HIGH_SHARE,
  READAHEAD_PINNED_SHARE,
  READS_MIN_SAMPLES,
  READS_NOT_BOTTLENECK_SHARE,
  SMALL_READ_BYTES,
} from "./thresholds";
import { queueHead, workersEvidence, workersIdleText, type WorkerLoad } from "./workers";

export interface RunContext {
  ioMethod: string | null;
  /** effective_io_concurrency (maintenance_io_concurrency for VACUUM) */
  readAhead: number | null;
  /** io_combine_limit as applied, bytes */
  combineBytes: number | null;
  workers: WorkerLoad;
  /** "raise io_workers (now 3)" on 18, io_max_workers on 19 (findings/pool.ts) */
  workersLever: string;
  /** the lever in a few words: "raise io_workers (now 1)" */
  workersLeverShort: string;
  /** the setting that sizes the io workers: io_workers (18), io_max_workers (19) */
  workersSetting: string;
  /** 19's pool below its maximum, said instead of "not saturated"; null on 18 */
  poolNote: string | null;
  /** the target's major (server_version_num / 10000); null when not known */
  major: number | null;
  /** the run's pg_stat_statements entry, when its query id is known */
  statement: StatementStat | undefined;
  /** under io_method = sync: what this server's history says of the statement under worker */
  method?: MethodEvidence | null;
}

export interface RunVerdict {
  rule: FindingRule;
  severity: FindingSeverity;
  /** the clause the sentence ends with */
  clause: string;
  /** the lever in a few words, for the glance; null: too early to tell */
  lever: string | null;
  evidence: Record<string, number | string | null>;
}

type RunRule = (run: QueryRun, f: RunFigures, ctx: RunContext) => RunVerdict | null;

const tooShort: RunRule = (run, f) =>
  f.samples < MIN_SAMPLES
    ? {
        rule: "too_short",
        severity: "info",
        clause: `too few samples to tell (${f.samples} sample${f.samples === 1 ? "" : "s"})`,
        lever: null,
        evidence: { samples: f.samples },
      }
    : null;

const cached: RunRule = (run, f, ctx) => {
  const s = ctx.statement;
  if (f.reads || !s || s.sharedBlksRead > 0 || s.sharedBlksHit === 0) return null;
  return {
    rule: "cached",
    severity: "info",
    clause: `it reads from shared buffers only (pg_stat_statements: 0 blocks read, ${s.sharedBlksHit} hit): asynchronous I/O is not in play`,
    lever: NO_LEVER,
    evidence: { blocksRead: 0, blocksHit: s.sharedBlksHit },
  };
};

const notBottleneck: RunRule = (run, f) => {
  if (f.samples < READS_MIN_SAMPLES || f.readWait >= READS_NOT_BOTTLENECK_SHARE) return null;
  return {
    rule: "reads_not_bottleneck",
    severity: "info",
    clause: `reads are not its bottleneck (on CPU in ${pct(f.cpu)} of samples, other waits in ${pct(Math.max(0, 1 - f.cpu - f.readWait))}): no I/O setting will help much`,
    lever: NO_LEVER,
    evidence: { readWait: round(f.readWait), cpu: round(f.cpu) },
  };
};

const workersQueue: RunRule = (run, f, ctx) => {
  const w = ctx.workers;
  if (ctx.ioMethod !== "worker" || !f.async || !w.saturated) return null;
  return {
    rule: "workers_queue",
    severity: w.level === "queue" ? "act" : "note",
    // The evidence is the server's finding, said once for every query it holds back.
    clause: `${queueHead(w)} (the io workers finding): ${ctx.workersLever} and measure again`,
    lever: ctx.workersLeverShort,
    evidence: workersEvidence(w),
  };
};

/**
 * io_method = sync and a scan waiting on its reads: worker would keep them in
 * flight, but only advised where this server's history does not contradict
 * it (method-evidence.ts): measured faster here, cited; measured no faster,
 * said, and not advised; not measured, said so, with the lab.
 */
const ioMethodSync: RunRule = (run, f, ctx) => {
  if (ctx.ioMethod !== "sync" || run.readWaitSamples === 0) return null;
  // Combined reads of several blocks are a scan's; single 8 kB pages an index's, which no io_method keeps in flight.
  if (run.syncReadBytes !== null && run.syncReadBytes < COMBINED_READ_BYTES) return null;
  const m = ctx.method ?? { kind: "unmeasured", text: null };
  const head = "io_method = sync: it waits for each read in turn (IO:DataFileRead)";
  const evidence = { syncReadBytes: run.syncReadBytes, readWait: round(f.readWait), history: m.kind };
  if (m.kind === "gain") {
    return {
      rule: "io_method_sync",
      severity: "act",
      clause: `${head}; under io_method = worker this statement ran faster here (${m.text}): set io_method = worker (a restart applies it)`,
      lever: "io_method = worker: faster here",
      evidence,
    };
  }
  if (m.kind === "no_gain") {
    return {
      rule: "io_method_sync",
      severity: "info",
      clause: `${head}; under io_method = worker this statement was no faster here (${m.text}): io_method is not the lever here`,
      lever: "not io_method: worker was no faster here",
      evidence,
    };
  }
  return {
    rule: "io_method_sync",
    severity: "note",
    clause: `${head}; io_method = worker keeps a scan's reads in flight, unmeasured here: ${MEASURE_WITH_LAB}`,
    lever: "io_method = worker? unmeasured here: try the lab",
    evidence,
  };
};

const syncReads: RunRule = (run, f, ctx) => {
  if (f.async || !f.reads || ctx.ioMethod === "sync") return null;
  const size = run.syncReadBytes !== null ? `${formatBytes(run.syncReadBytes)} a read` : "one block at a time";
  return {
    rule: "sync_reads",
    severity: "info",
    clause: `its reads are synchronous (${size}${also(run)}; index lookups read this way in ${syncIndexMajor(ctx.major)}): io_method and ${ctx.workersSetting} are not its levers; look at the plan, the index, shared_buffers`,
    lever: "the plan or index, not an I/O setting",
    evidence: { syncWait: round(f.syncWait), syncReadBytes: run.syncReadBytes },
  };
};

const readAheadDepth: RunRule = (run, f, ctx) => {
  const depth = ctx.readAhead;
  if (!f.async || depth === null || depth <= 0 || f.readWait < READ_WAIT_HIGH_SHARE || ctx.workers.saturated) return null;
  if (run.maxInFlight < depth * READAHEAD_PINNED_SHARE || (f.meanInFlight ?? 0) < depth * READAHEAD_PINNED_SHARE) return null;
  const knob =
    run.backendType === "autovacuum worker" || /^\s*vacuum\b/i.test(run.query) ? "maintenance_io_concurrency" : "effective_io_concurrency";
  return {
    rule: "readahead_depth",
    severity: "act",
    clause: `read-ahead depth is the limit: ${Math.round(f.meanInFlight ?? 0)} reads in flight on average, at ${knob} = ${depth}, with the io workers not its queue: raise ${knob} and measure again`,
    lever: `raise ${knob} (now ${depth})`,
    evidence: { meanInFlight: round(f.meanInFlight ?? 0), readAhead: depth },
  };
};

const smallReads: RunRule = (run, f, ctx) => {
  if (!f.async || run.asyncReadBytes === null || run.asyncReadBytes >= SMALL_READ_BYTES) return null;
  return {
    rule: "small_reads",
    severity: "note",
    clause: `its reads are small (${formatBytes(run.asyncReadBytes)} on average${ctx.combineBytes ? ` against io_combine_limit ${formatBytes(ctx.combineBytes)}` : ""}): scattered blocks, little to combine`,
    lever: NO_LEVER,
    evidence: { asyncReadBytes: run.asyncReadBytes, combineBytes: ctx.combineBytes },
  };
};

/** What made it async: handles seen in flight, or (none seen) its IO:Aio* waits, as the row says it. */
function asyncEvidence(run: QueryRun, f: RunFigures): string {
  // Counts, as the run's row gives them (lib/view/runs.ts verdictEvidence): one figure on the page.
  if (f.inFlight)
    return `reads in flight in ${run.aioSamples} of ${run.aioReadSamples} sample${run.aioReadSamples === 1 ? "" : "s"} that read pg_aios`;
  const waits = `waiting on async reads in ${run.aioWaitSamples} of ${run.samples} sample${run.samples === 1 ? "" : "s"}`;
  return run.aioReadSamples
    ? `${waits}, none of its own in flight in the ${run.aioReadSamples} that read pg_aios`
    : `${waits}, pg_aios not read`;
}

/** Async reads and none of the above: say why io_method and io_workers are not the lever either. */
const asyncReads: RunRule = (run, f, ctx) => {
  if (!f.async) return null;
  const w = ctx.workers;
  const workers =
    ctx.ioMethod === "io_uring"
      ? "io_uring submits them from the backend itself (no io workers to be the queue)"
      : (ctx.poolNote ?? workersIdleText(w));
  return {
    rule: "async_reads",
    severity: "info",
    clause: `its reads are asynchronous (${asyncEvidence(run, f)}${also(run)}); ${workers}, so changing io_method or ${ctx.workersSetting} is unlikely to help`,
    lever: NO_LEVER,
    evidence: { inFlightShare: f.inFlight === null ? null : round(f.inFlight), maxBusy: w.maxBusy, ioWorkers: w.alive },
  };
};

/** In order: the first that holds names the finding. */
export const RUN_RULES: readonly RunRule[] = [
  tooShort,
  cached,
  notBottleneck,
  workersQueue,
  ioMethodSync,
  syncReads,
  readAheadDepth,
  smallReads,
  asyncReads,
];

export function runVerdict(run: QueryRun, f: RunFigures, ctx: RunContext): RunVerdict | null {
  for (const rule of RUN_RULES) {
    const v = rule(run, f, ctx);
    if (v) return v;
  }
  return null;
}

/** "; an async read in 1 of 41 samples": the other kind of read beside the verdict, when there was one. */
const also = (run: QueryRun) => {
  const minority = verdictMinority(run);
  return minority ? `; ${minority}` : "";
};

const round = (n: number) => Math.round(n * 1000) / 1000;
