// Findings over the window (pure): what is happening and what would help,
// in plain words, most severe first. The rules: runs.ts (one sentence per
// slow running query) and server.ts; their thresholds: thresholds.ts.
import { formatDuration } from "../../../format";
import { FINDING_SEVERITIES, type Finding, type FindingSeverity, type FindingsPayload } from "../../../schemas/findings";
import type { MethodMeasures } from "../../compare/measured";
import type { MethodRun } from "../method-runs";
import type { QueryRun, StatementStat } from "../../../schemas/runs";
import type { Reload, Restart, Settings } from "../../../schemas/settings";
import type { Capabilities, TargetInfo } from "../../../schemas/target";
import type { Tick } from "../../../schemas/tick";
import { majorOf, workersLeverName, workersLeverShort } from "../major";
import { settingBytes } from "../settings";
import { progressText, quoteQuery, runFigures } from "./figures";
import { NO_LEVER, runGlance } from "./glance";
import { methodEvidence } from "./method-evidence";
import { runVerdict, type RunContext } from "./runs";
import * as server from "./server";
import { COMBINED_READ_BYTES, MAX_RUN_FINDINGS, SLOW_RUN_MS } from "./thresholds";
import { workerLoad } from "./workers";
import { readShareSentence } from "../verdict";
import { poolGrowing, poolLoad, poolNote, poolSaturated, workersLeverText } from "./pool";
import { reloadsApplied } from "./reloads";

export type { NewFinding } from "./server";

export interface FindingsInput {
  now: number;
  target: server.ServerInput["target"] & Pick<TargetInfo, "capabilities" | "serverVersionNum">;
  settings: Readonly<Settings>;
  restarts: readonly Restart[];
  /** the reloads seen live that changed a setting in force (absent: none) */
  reloads?: readonly Reload[];
  statements: readonly StatementStat[];
  /** every run in the window (the running ones are judged) */
  runs: readonly QueryRun[];
  /** the ticks of the last WORKERS_SPAN_MS */
  recent: readonly Tick[];
  /** when an io worker was first seen exiting since this server started (19's pool shrinking); null or absent: none seen */
  poolExitAt?: number | null;
  /** what this server's history measured per queryid under each io_method (the page's before/after), when it has */
  measured?: MethodMeasures;
  /** the slow runs of each statement in the window with the io_method they ran under (method-runs.ts) */
  methodRuns?: readonly MethodRun[];
}

/** What the findings need to know of the target beyond the window. */
export type FindingsTarget = FindingsInput["target"];

const RANK = Object.fromEntries(FINDING_SEVERITIES.map((s, i) => [s, i])) as Record<FindingSeverity, number>;

export function computeFindings(input: FindingsInput): { findings: server.NewFinding[]; moreRuns: number } {
  // 19's pool grows by itself: below io_max_workers its busy workers are not the queue.
  const workers = poolLoad(input.settings, workerLoad(input.recent));
  const serverInput: server.ServerInput = { ...input, workers };
  const down = server.targetDown(serverInput);
  const slow = input.runs.filter((r) => r.endedAt === null && input.now - r.startedAt >= SLOW_RUN_MS).sort(longestLeftFirst);
  const runs =
    input.target.status === "up" ? slow.slice(0, MAX_RUN_FINDINGS).map((run, i) => runFinding(run, i === 0, input, workers)) : [];
  // A server-wide cause is said once, naming the running queries it holds back.
  const heldBy = (rule: string) => runs.filter((f) => f.rule === rule && f.pid !== undefined).map((f) => f.pid!);
  const queue = poolSaturated(serverInput) ?? server.workersQueue(serverInput);
  const others = [
    ...server.degraded(serverInput),
    queue && { ...queue, glance: { ...queue.glance, holds: heldBy("workers_queue") } },
    poolGrowing({ ...serverInput, poolExitAt: input.poolExitAt ?? null }),
    server.uringSubmit(serverInput),
    server.restartPending(serverInput),
    server.serverStarted(serverInput),
    ...reloadsApplied({
      reloads: input.reloads ?? [],
      start: input.target.postmasterStart,
      ioMethod: input.settings.io_method?.setting,
      recent: input.recent,
    }),
    server.combineClamped(serverInput),
    server.cachedStatement(serverInput),
  ].filter((f): f is server.NewFinding => f !== null);
  // Stable: within a severity, the running queries (about now) come first.
  const sorted = [...runs, ...others].sort((a, b) => RANK[a.severity] - RANK[b.severity]);
  return {
    findings: down ? [down, ...sorted] : sorted,
    moreRuns: input.target.status === "up" ? Math.max(0, slow.length - MAX_RUN_FINDINGS) : 0,
  };
}

function runContext(run: QueryRun, input: FindingsInput, workers: RunContext["workers"]): RunContext {
  const s = input.settings;
  const num = (name: string) => {
    const v = Number(s[name]?.setting);
    return Number.isFinite(v) ? v : null;
  };
  const bytes = (name: string) => (s[name] ? settingBytes(s[name].setting, s[name].unit) : null);
  const limit = bytes("io_combine_limit");
  const max = bytes("io_max_combine_limit");
  const vacuum = run.backendType === "autovacuum worker" || /^\s*vacuum\b/i.test(run.query);
  return {
    ioMethod: s.io_method?.setting ?? null,
    readAhead: num(vacuum ? "maintenance_io_concurrency" : "effective_io_concurrency"),
    combineBytes: limit !== null && max !== null ? Math.min(limit, max) : limit,
    workers,
    workersLever: workersLeverText(s, workers),
    workersLeverShort: workersLeverShort(s, workers.alive),
    workersSetting: workersLeverName(s),
    poolNote: poolNote(s, input.recent),
    major: majorOf(input.target.serverVersionNum),
    statement: run.queryId ? input.statements.find((x) => x.queryId === run.queryId) : undefined,
    method: s.io_method?.setting === "sync" ? methodEvidence(run, "sync", "worker", input.methodRuns ?? [], input.measured) : null,
  };
}

/** Why a running query's progress cannot be followed, in plain words. */
function noProgress(run: QueryRun, input: FindingsInput): string {
  const caps: Capabilities | null = input.target.capabilities;
  const major = majorOf(input.target.serverVersionNum);
  if (caps && !caps.aios) return `progress cannot be seen: PostgreSQL ${major ?? "before 18"} has no pg_aios`;
  if (caps?.aiosDenied) return "progress cannot be seen: pg_aios is denied to this role";
  const combined = (run.asyncReadBytes ?? 0) > 0 || (run.syncReadBytes ?? 0) >= COMBINED_READ_BYTES;
  if (combined && run.relations.some((r) => r.blocks === null))
    return "progress not known yet (its table's size is being looked up, or VACUUM and ANALYZE never counted it)";
  return "no scan position to follow (it reads single pages, or nothing from disk)";
}

function runFinding(run: QueryRun, first: boolean, input: FindingsInput, workers: RunContext["workers"]): server.NewFinding {
  // Up to its last sample, as its row in the runs table counts it: one figure on the page.
  const f = runFigures(run, run.lastSeen);
  const ctx = runContext(run, input, workers);
  const verdict = runVerdict(run, f, ctx);
  const blockSize = Number(input.settings.block_size?.setting) || 8192;
  const on = run.progressRelation ?? run.relations.find((r) => r.read !== "sync")?.name ?? run.relations[0]?.name;
  const progress = progressText(run, blockSize, on) ?? noProgress(run, input);
  // The run's one read share, in the words and figures of its row and its verdict (lib/model/window/verdict.ts).
  const waits = readShareSentence(run);
  const head = `${first && run.etaMs !== null ? "Longest left" : "Running"}: pid ${run.pid}${run.workerPids.length ? ` (+${run.workerPids.length} parallel workers)` : ""} ${quoteQuery(run.query)}${on ? ` on ${on}` : ""}, ${formatDuration(f.elapsedMs)}, ${progress}`;
  const text = verdict?.rule === "too_short" ? `${head}; ${verdict.clause}.` : `${head}; ${waits}${verdict ? `; ${verdict.clause}` : ""}.`;
  return {
    id: `run:${run.id}`,
    rule: verdict?.rule ?? "too_short",
    severity: verdict?.severity ?? "info",
    glance: runGlance(run, verdict ? verdict.lever : NO_LEVER, f.samples ? "running" : "not sampled yet"),
    text,
    evidence: {
      samples: f.samples,
      readWait: round(f.readWait),
      asyncWait: round(f.asyncWait),
      syncWait: round(f.syncWait),
      elapsedMs: f.elapsedMs,
      progress: run.progress,
      etaMs: run.etaMs,
      etaLowMs: run.etaRangeMs?.[0] ?? null,
      etaHighMs: run.etaRangeMs?.[1] ?? null,
      readBytesPerSec: run.readBlocksPerSec === null ? null : run.readBlocksPerSec * blockSize,
      ...verdict?.evidence,
    },
    pid: run.pid,
    runId: run.id,
    ...(run.queryId ? { queryId: run.queryId } : {}),
  };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** The running query with the most time left first; those whose time left is not known after, longest running first. */
function longestLeftFirst(a: QueryRun, b: QueryRun): number {
  if (a.etaMs !== null && b.etaMs !== null) return b.etaMs - a.etaMs;
  if (a.etaMs !== null || b.etaMs !== null) return a.etaMs !== null ? -1 : 1;
  return a.startedAt - b.startedAt;
}

/** The restarts the findings judge: those seen live, and the one into this start known from the history. */
export function withKnownStart(live: readonly Restart[], known: Restart | null): readonly Restart[] {
  return known && !live.some((r) => r.at === known.at) ? [...live, known] : live;
}

/**
 * The findings of the moment `t`, each keeping the time it first held;
 * changed when a sentence or the count moved (the moment alone is no change).
 */
export function stampFindings(
  prev: FindingsPayload,
  findings: readonly server.NewFinding[],
  moreRuns: number,
  t: number,
): { next: FindingsPayload; changed: boolean } {
  const since = new Map(prev.findings.map((f) => [f.id, f.since]));
  const next: FindingsPayload = { asOf: t, findings: findings.map((f): Finding => ({ ...f, since: since.get(f.id) ?? t })), moreRuns };
  return { next, changed: JSON.stringify(next.findings) !== JSON.stringify(prev.findings) || next.moreRuns !== prev.moreRuns };
}
