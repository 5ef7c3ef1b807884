// Findings about the server rather than one query: it is down, a
// collection aspect fails, the io workers are the queue, a restart did (or
// did not yet do) what it was meant to, a setting does not do what it says.
import { formatBytes, formatClock, formatDuration } from "../../format";
import type { Finding } from "../../schemas/findings";
import type { StatementStat } from "../../schemas/runs";
import type { Restart, Settings } from "../../schemas/settings";
import type { AspectHealth, TargetInfo } from "../../schemas/target";
import type { Tick } from "../../schemas/tick";
import { workersLever, workersSettingText } from "../major";
import { settingBytes } from "../settings";
import { capitalize, pct, quoteQuery } from "./figures";
import { CACHED_MIN_EXEC_MS, URING_SUBMIT_SHARE } from "./thresholds";
import { queueEvidence, waitShare, type WorkerLoad } from "./workers";

/** A finding before its `since` is known (the window keeps when each first held). */
export type NewFinding = Omit<Finding, "since">;

export interface ServerInput {
  now: number;
  target: Pick<TargetInfo, "name" | "status" | "statusSince" | "lastError" | "aspects" | "postmasterStart">;
  settings: Readonly<Settings>;
  restarts: readonly Restart[];
  statements: readonly StatementStat[];
  recent: readonly Tick[];
  workers: WorkerLoad;
}

/** How the page and the findings name each collection aspect. */
export const ASPECT_NAMES = { sampling: "sampling", aios: "pg_aios", stat_io: "pg_stat_io", settings: "pg_settings", statements: "pg_stat_statements", relations: "relation names" } as const satisfies Record<AspectHealth["aspect"], string>;

export function targetDown({ target }: ServerInput): NewFinding | null {
  if (target.status === "up") return null;
  const what = target.status === "down" ? `is down since ${formatClock(target.statusSince)}` : "is not reachable yet";
  return {
    id: "target_down",
    rule: "target_down",
    severity: "act",
    text: `${target.name} ${what}: ${target.lastError ?? "no answer"}. Sampling resumes by itself when it answers; the figures below are from before.`,
    evidence: { status: target.status, since: target.statusSince, error: target.lastError },
  };
}

export function degraded({ target }: ServerInput): NewFinding[] {
  if (target.status !== "up") return [];
  return target.aspects
    .filter((a) => a.state === "failing")
    .map((a) => ({
      id: `collection_degraded:${a.aspect}`,
      rule: "collection_degraded" as const,
      severity: "warn" as const,
      text: `${ASPECT_NAMES[a.aspect]} cannot be read since ${formatClock(a.since)}: ${a.lastError ?? "error"}. The other figures are still read.`,
      evidence: { aspect: a.aspect, since: a.since, error: a.lastError },
    }));
}

export function workersQueue({ settings, workers: w }: ServerInput): NewFinding | null {
  if (settings.io_method?.setting !== "worker" || !w.saturated) return null;
  const why = queueEvidence(w);
  return {
    id: "workers_queue",
    rule: "workers_queue",
    severity: "act",
    text: `The io workers are the queue: ${why}. ${capitalize(workersLever(settings, w.alive, "a reload is enough in 18"))} and measure again.`,
    evidence: { ioWorkers: w.alive, allBusyShare: w.allBusyShare, queueWaits: w.queueWaits, submittedAboveShare: w.submittedAboveShare },
  };
}

export function uringSubmit({ settings, recent }: ServerInput): NewFinding | null {
  if (settings.io_method?.setting !== "io_uring") return null;
  const { share, samples } = waitShare(recent, "IO:AioIoUringSubmit");
  if (samples === 0 || share < URING_SUBMIT_SHARE) return null;
  return {
    id: "io_uring_submit",
    rule: "io_uring_submit",
    severity: "warn",
    text: `io_uring submission waits dominate: active backends wait on IO:AioIoUringSubmit (handing reads to the kernel) in ${pct(share)} of the samples of the last 5 s. The kernel's queue, not the read itself, is where they wait: compare with io_method = worker on a copy.`,
    evidence: { submitShare: share },
  };
}

export function restartPending({ settings }: ServerInput): NewFinding | null {
  const pending = Object.entries(settings).filter(([, s]) => s.pendingRestart);
  if (!pending.length) return null;
  const names = pending.map(([name, s]) => `${name} (in force: ${s.display})`).join(", ");
  return {
    id: "restart_pending",
    rule: "restart_pending",
    severity: "act",
    text: `${names} ${pending.length === 1 ? "was" : "were"} changed and ${pending.length === 1 ? "waits" : "wait"} for a restart: the value in force is still the one shown (the new one is in pg_file_settings, which only a superuser can read).`,
    evidence: { settings: pending.map(([name]) => name).join(",") },
  };
}

/** Whether the restart's changes are the settings in force now, and what that means for the io workers. */
export function restartApplied({ restarts, settings, recent }: ServerInput): NewFinding | null {
  const r = restarts.at(-1);
  if (!r) return null;
  const io = r.changes.filter((c) => c.name.startsWith("io_") || c.name === "effective_io_concurrency" || c.name === "maintenance_io_concurrency" || c.name === "shared_buffers");
  if (!io.length) {
    return { id: "restart_applied", rule: "restart_applied", severity: "info", text: `The restart at ${formatClock(r.at)} changed no I/O setting.`, evidence: { at: r.at } };
  }
  // A setting the new server lacks (io_workers after an upgrade to 19) is held when it reads nothing.
  const held = io.filter((c) => (settings[c.name]?.display ?? null) === c.after);
  // Only samples of the restarted server say what it runs now.
  const last = recent.filter((t) => t.t >= r.seenAt).at(-1);
  const method = settings.io_method?.setting;
  const workers = last ? (method === "worker" ? `${last.workers.alive} io workers alive` : `${last.workers.alive} io workers`) : null;
  const effect = method === "sync" ? "reads now synchronous" : method === "io_uring" ? "reads submitted through io_uring" : method === "worker" ? "reads handed to io workers" : null;
  const changes = io.map((c) => `${c.name} ${c.before ?? "(unset)"} -> ${c.after ?? "(unset)"}`).join(", ");
  const inForce = held.length === io.length;
  return {
    id: "restart_applied",
    rule: "restart_applied",
    severity: inForce ? "info" : "act",
    text: inForce
      ? `Restart ${formatClock(r.at)} changed ${changes}: in force${[workers, effect].filter(Boolean).length ? ` (${[workers, effect].filter(Boolean).join("; ")})` : ""}.`
      : `Restart ${formatClock(r.at)} changed ${changes}, but ${io.filter((c) => !held.includes(c)).map((c) => `${c.name} reads ${settings[c.name]?.display ?? "nothing"}`).join(", ")} now: check the server log.`,
    evidence: { at: r.at, changes, inForce },
  };
}

export function combineClamped({ settings }: ServerInput): NewFinding | null {
  const limit = settings.io_combine_limit;
  const max = settings.io_max_combine_limit;
  const a = limit && settingBytes(limit.setting, limit.unit);
  const b = max && settingBytes(max.setting, max.unit);
  if (!a || !b || a <= b) return null;
  return {
    id: "combine_clamped",
    rule: "combine_clamped",
    severity: "act",
    text: `io_combine_limit ${formatBytes(a)} is above io_max_combine_limit ${formatBytes(b)}: it is clamped silently, reads are combined up to ${formatBytes(b)} only. Raise io_max_combine_limit (restart) or lower io_combine_limit to ${formatBytes(b)}.`,
    evidence: { ioCombineLimit: a, ioMaxCombineLimit: b, effective: b },
  };
}

export function settingsUnchanged({ settings, restarts, target, now }: ServerInput): NewFinding | null {
  if (restarts.length || !settings.io_method || Object.values(settings).some((s) => s.pendingRestart)) return null;
  const start = target.postmasterStart;
  const method = settings.io_method.setting;
  const sizing = method === "worker" ? workersSettingText(settings) : null;
  const workers = sizing ? `, ${sizing}` : "";
  return {
    id: "settings_unchanged",
    rule: "settings_unchanged",
    severity: "info",
    text: `No I/O setting waits for a restart, and none was restarted into while watched: the server runs io_method ${method}${workers}${start ? ` since it started at ${formatClock(start)} (${formatDuration(now - start)} ago)` : ""}.`,
    evidence: { ioMethod: method, serverStart: start },
  };
}

/** The statement with most execution time that read nothing from disk: served from shared buffers. */
export function cachedStatement({ statements }: ServerInput): NewFinding | null {
  const s = statements.find((x) => x.totalExecTime >= CACHED_MIN_EXEC_MS && x.sharedBlksRead === 0 && x.sharedBlksHit > 0 && !isHousekeeping(x.query));
  if (!s) return null;
  return {
    id: `cached:${s.queryId}`,
    rule: "cached",
    severity: "info",
    text: `${quoteQuery(s.query)}: ${s.calls} call${s.calls === 1 ? "" : "s"} in the window (${formatDuration(s.totalExecTime)}), all from shared buffers (0 blocks read, ${s.sharedBlksHit} hit): asynchronous I/O is not in play.`,
    evidence: { calls: s.calls, execMs: s.totalExecTime, blocksHit: s.sharedBlksHit },
    queryId: s.queryId,
  };
}

/** Transaction control and session settings: nothing to say about their reads. */
export function isHousekeeping(query: string): boolean {
  return /^\s*(BEGIN|COMMIT|ROLLBACK|START TRANSACTION|END|SET|RESET|SHOW|DISCARD|SAVEPOINT|RELEASE)\b/i.test(query);
}
