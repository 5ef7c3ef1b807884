// Findings about the server rather than one query: it is down, a
// collection aspect fails, the io workers are the queue, a restart did (or
// did not yet do) what it was meant to, a setting does not do what it says.
import { formatBytes, formatClock, formatDuration } from "../../../format";
import type { Finding } from "../../../schemas/findings";
import type { StatementStat } from "../../../schemas/runs";
import type { Reload, Restart, SettingChange, Settings } from "../../../schemas/settings";
import type { AspectHealth, TargetInfo } from "../../../schemas/target";
import type { Tick } from "../../../schemas/tick";
import { pendingGlance, pendingSettings, pendingText } from "../pending";
import { POOL_SETTINGS, workersLever, workersLeverShort, workersSettingText } from "../major";
import { settingBytes } from "../settings";
import { capitalize, pct, quoteQuery } from "./figures";
import { changesWorkers, ioReloadsSince, isIoSetting, lastReloadOf, type IoReload } from "./reloads";
import { CACHED_MIN_EXEC_MS, URING_SUBMIT_SHARE, WORKERS_SPAN_MS } from "./thresholds";
import { queueEvidence, queueHead, waitShare, workersEvidence, type WorkerLoad } from "./workers";

/** A finding before its `since` is known (the window keeps when each first held). */
export type NewFinding = Omit<Finding, "since">;

export interface ServerInput {
  now: number;
  target: Pick<TargetInfo, "name" | "status" | "statusSince" | "lastError" | "aspects" | "postmasterStart">;
  settings: Readonly<Settings>;
  restarts: readonly Restart[];
  /** the reloads seen live that changed a setting in force (absent: none) */
  reloads?: readonly Reload[];
  statements: readonly StatementStat[];
  recent: readonly Tick[];
  workers: WorkerLoad;
}

/** How the page and the findings name each collection aspect. */
export const ASPECT_NAMES = {
  sampling: "sampling",
  aios: "pg_aios",
  stat_io: "pg_stat_io",
  settings: "pg_settings",
  statements: "pg_stat_statements",
  relations: "relation names",
} as const satisfies Record<AspectHealth["aspect"], string>;

export function targetDown({ target }: ServerInput): NewFinding | null {
  if (target.status === "up") return null;
  const what = target.status === "down" ? `is down since ${formatClock(target.statusSince)}` : "is not reachable yet";
  return {
    id: "target_down",
    rule: "target_down",
    severity: "act",
    glance: { now: `${target.name} ${what}: ${target.lastError ?? "no answer"}`, lever: null },
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
      severity: "note" as const,
      glance: { now: `${ASPECT_NAMES[a.aspect]} cannot be read: ${(a.lastError ?? "error").split("\n")[0]}`, lever: null },
      text: `${ASPECT_NAMES[a.aspect]} cannot be read since ${formatClock(a.since)}: ${a.lastError ?? "error"}. The other figures are still read.`,
      evidence: { aspect: a.aspect, since: a.since, error: a.lastError },
    }));
}

export function workersQueue({ settings, workers: w }: ServerInput): NewFinding | null {
  if (settings.io_method?.setting !== "worker" || !w.saturated) return null;
  const head = queueHead(w);
  return {
    id: "workers_queue",
    rule: "workers_queue",
    severity: w.level === "queue" ? "act" : "note",
    glance: {
      now: `io workers are the queue (${pct(w.saturatedShare)} of the last ${WORKERS_SPAN_MS / 1000} s)`,
      lever: workersLeverShort(settings, w.alive),
    },
    text: `${head[0].toUpperCase()}${head.slice(1)}: ${queueEvidence(w)}. ${capitalize(workersLever(settings, w.alive))} and measure again.`,
    evidence: workersEvidence(w),
  };
}

export function uringSubmit({ settings, recent }: ServerInput): NewFinding | null {
  if (settings.io_method?.setting !== "io_uring") return null;
  const { share, samples } = waitShare(recent, "IO:AioIoUringSubmit");
  if (samples === 0 || share < URING_SUBMIT_SHARE) return null;
  return {
    id: "io_uring_submit",
    rule: "io_uring_submit",
    severity: "note",
    glance: { now: `Handing reads to io_uring is where backends wait (${pct(share)})`, lever: "compare io_method = worker on a copy" },
    text: `io_uring submission waits dominate: active backends wait on IO:AioIoUringSubmit (handing reads to the kernel) in ${pct(share)} of the samples of the last 5 s. The kernel's queue, not the read itself, is where they wait: compare with io_method = worker on a copy.`,
    evidence: { submitShare: share },
  };
}

export function restartPending({ settings }: ServerInput): NewFinding | null {
  const text = pendingText(settings);
  if (!text) return null;
  const pending = pendingSettings(settings);
  return {
    id: "restart_pending",
    rule: "restart_pending",
    severity: "act",
    glance: {
      now: `Waiting for a restart: ${pending.map(([name, p]) => pendingGlance(name, p)).join(", ")}`,
      lever: "restart to apply, or undo it",
    },
    text,
    evidence: { settings: pending.map(([name]) => name).join(","), next: pending.map(([, s]) => s.pendingNext?.value ?? "?").join(",") },
  };
}

/** "18.6" / "19rc1" -> 18 / 19; null when not a version. */
function majorOfVersion(version: string | null): number | null {
  const m = /^(\d+)/.exec(version ?? "");
  return m ? Number(m[1]) : null;
}

interface StartChanges {
  /** server_version when it moved: "PostgreSQL 18.6 -> 19rc1" */
  version: string | null;
  /** the I/O settings the new server has that changed (an old major's own left out) */
  io: SettingChange[];
  /** the text of what changed: the version, then each setting */
  text: string;
}

/**
 * What a restart changed, as the server it started has it. Across a major
 * upgrade a setting there before and absent after is the old major's (18's
 * io_workers on 19): left out, since the new server has no such setting;
 * the ones the new major brought are named with their values, the pool's
 * as the pool. Within a major every I/O setting that changed is listed.
 */
function startChanges(r: Restart): StartChanges {
  const v = r.changes.find((c) => c.name === "server_version");
  // "18.6 (Debian 18.6-3)" reads as 18.6: the packager's suffix is not the version.
  const short = (version: string | null) => version?.split(" ")[0] ?? "?";
  const version = v ? `PostgreSQL ${short(v.before)} -> ${short(v.after)}` : null;
  const major = majorOfVersion(v?.after ?? null);
  const newMajor = major !== null && major !== majorOfVersion(v?.before ?? null);
  const io = r.changes.filter((c) => isIoSetting(c.name) && !(newMajor && c.after === null));
  const brought = newMajor ? io.filter((c) => c.before === null) : [];
  const pool = POOL_SETTINGS.flatMap((name) => brought.filter((c) => c.name === name));
  const other = brought.filter((c) => !pool.includes(c));
  const named = (cs: SettingChange[]) => cs.map((c) => `${c.name} ${c.after}`).join(", ");
  const parts = [
    version && `${version}${pool.length ? ` (${major} sizes its io workers itself: ${named(pool)})` : ""}`,
    other.length ? `new in ${major}: ${named(other)}` : null,
    ...io.filter((c) => !brought.includes(c)).map((c) => `${c.name} ${c.before ?? "(unset)"} -> ${c.after ?? "(unset)"}`),
  ];
  return { version, io, text: parts.filter(Boolean).join(", ") };
}

/**
 * The server's start and the restart into it, seen live or known from the
 * history on disk: what it changed (or that it changed no I/O setting) and
 * whether that is in force, then the io settings in force. The restart's
 * time is the postmaster's start, the same everywhere on the page.
 */
export function serverStarted({ restarts, reloads, settings, recent, target }: ServerInput): NewFinding | null {
  const start = target.postmasterStart;
  const method = settings.io_method?.setting;
  if (start === null || !method) return null;
  const last = restarts.at(-1);
  const r = last?.at === start ? last : null;
  const changed = r ? startChanges(r) : null;
  const io = changed?.io ?? [];
  const since = ioReloadsSince(reloads ?? [], start);
  const waits = `${pendingSettings(settings).length ? "" : "; none waits for a restart"}${reloadedSince(since)}`;
  const sizing = method === "worker" ? workersSettingText(settings) : null;
  const inForce = `io_method ${method}${sizing ? `, ${sizing}` : ""}`;
  if (!r || !io.length) {
    const what = !r
      ? ", before inflight's history of this server begins: what that start changed is not known"
      : changed?.version
        ? `: that restart changed ${changed.version} and no I/O setting`
        : ": that restart changed no I/O setting";
    return {
      id: `settings_unchanged:${start}`,
      rule: "settings_unchanged",
      severity: "info",
      glance: { now: `Started ${formatClock(start)}: ${inForce}`, lever: null },
      text: `Server started ${formatClock(start)}${what}${waits}. ${inForce}.`,
      evidence: { ioMethod: method, serverStart: start, restartKnown: r !== null },
    };
  }
  // A setting a reload changed again since is the reload's now (its own finding), not the restart's to hold.
  const held = io.filter((c) => lastReloadOf(since, c.name) || (settings[c.name]?.display ?? null) === c.after);
  // Only samples of the restarted server say what it runs now, and only while no reload has resized the workers since.
  const sample = since.some(changesWorkers) ? undefined : recent.filter((t) => t.t >= r.seenAt).at(-1);
  const workers = sample ? (method === "worker" ? `${sample.workers.alive} io workers alive` : `${sample.workers.alive} io workers`) : null;
  const effect =
    method === "sync"
      ? "reads now synchronous"
      : method === "io_uring"
        ? "reads submitted through io_uring"
        : method === "worker"
          ? "reads handed to io workers"
          : null;
  const changes = changed!.text;
  const applied = held.length === io.length;
  const how = [workers, effect].filter(Boolean).join("; ");
  return {
    id: `restart_applied:${start}`,
    rule: "restart_applied",
    severity: applied ? "info" : "act",
    glance: {
      now: `Restarted ${formatClock(start)}: ${[changed!.version, ...io.map((c) => `${c.name} ${c.before ?? "(unset)"}→${c.after ?? "(unset)"}`)].filter(Boolean).join(", ")}${applied ? "" : ", not in force"}`,
      lever: applied ? null : "check the server log",
    },
    text: applied
      ? `Server started ${formatClock(start)}: that restart changed ${changes}, in force${how ? ` (${how})` : ""}${waits}.`
      : `Server started ${formatClock(start)}: that restart changed ${changes}, but ${io
          .filter((c) => !held.includes(c))
          .map((c) => `${c.name} reads ${settings[c.name]?.display ?? "nothing"}`)
          .join(", ")} now: check the server log.`,
    evidence: { at: start, changes, inForce: applied, reloadsSince: since.length },
  };
}

/** "; since then, a reload at 05:12:10 changed io_workers": what is in force now is not all the start's doing. */
function reloadedSince(since: readonly IoReload[]): string {
  const last = since.at(-1);
  if (!last) return "";
  const names = [...new Set(since.flatMap((x) => x.io.map((c) => c.name)))].join(", ");
  const when =
    since.length === 1
      ? `a reload at ${formatClock(last.reload.at)}`
      : `${since.length} reloads (the last at ${formatClock(last.reload.at)})`;
  return `; since then, ${when} changed ${names}`;
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
    glance: {
      now: `io_combine_limit ${formatBytes(a)} is clamped to ${formatBytes(b)}`,
      lever: `raise io_max_combine_limit or lower io_combine_limit`,
    },
    text: `io_combine_limit ${formatBytes(a)} is above io_max_combine_limit ${formatBytes(b)}: it is clamped silently, reads are combined up to ${formatBytes(b)} only. Raise io_max_combine_limit (restart) or lower io_combine_limit to ${formatBytes(b)}.`,
    evidence: { ioCombineLimit: a, ioMaxCombineLimit: b, effective: b },
  };
}

/** The statement with most execution time that read nothing from disk: served from shared buffers. */
export function cachedStatement({ statements }: ServerInput): NewFinding | null {
  const s = statements.find(
    (x) => x.totalExecTime >= CACHED_MIN_EXEC_MS && x.sharedBlksRead === 0 && x.sharedBlksHit > 0 && !isHousekeeping(x.query),
  );
  if (!s) return null;
  return {
    id: `cached:${s.queryId}`,
    rule: "cached",
    severity: "info",
    glance: { now: `${quoteQuery(s.query, 40)} reads only from shared buffers`, lever: null },
    text: `${quoteQuery(s.query)}: ${s.calls} call${s.calls === 1 ? "" : "s"} in the window (${formatDuration(s.totalExecTime)}), all from shared buffers (0 blocks read, ${s.sharedBlksHit} hit): asynchronous I/O is not in play.`,
    evidence: { calls: s.calls, execMs: s.totalExecTime, blocksHit: s.sharedBlksHit },
    queryId: s.queryId,
  };
}

/** Transaction control and session settings: nothing to say about their reads. */
export function isHousekeeping(query: string): boolean {
  return /^\s*(BEGIN|COMMIT|ROLLBACK|START TRANSACTION|END|SET|RESET|SHOW|DISCARD|SAVEPOINT|RELEASE)\b/i.test(query);
}
