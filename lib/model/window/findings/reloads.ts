// What a reload changed, said as a reload's (never as the restart's before
// it): one finding per reload of this server start that changed an I/O
// setting in force, and the words the restart finding uses to hand over.
import { formatClock } from "../../../format";
import type { Finding } from "../../../schemas/findings";
import type { Reload, SettingChange } from "../../../schemas/settings";
import type { Tick } from "../../../schemas/tick";
import { POOL_SETTINGS } from "../major";
import { MAX_RELOAD_FINDINGS } from "./thresholds";

/** The settings that size the io workers (18's io_workers, 19's pool): a reload of one changes the workers alive. */
const WORKER_SETTINGS: readonly string[] = ["io_workers", ...POOL_SETTINGS];

/** The settings the restart and reload findings name (the same filter for both). */
export const isIoSetting = (name: string) =>
  name.startsWith("io_") || name === "effective_io_concurrency" || name === "maintenance_io_concurrency" || name === "shared_buffers";

export interface IoReload {
  reload: Reload;
  /** its I/O settings changed in force */
  io: SettingChange[];
}

/** The reloads since this server start that changed an I/O setting in force, oldest first. */
export function ioReloadsSince(reloads: readonly Reload[], start: number): IoReload[] {
  return reloads
    .filter((r) => r.at >= start)
    .map((reload) => ({ reload, io: reload.changes.filter((c) => isIoSetting(c.name)) }))
    .filter((x) => x.io.length > 0);
}

/** "io_workers 3 -> 1, effective_io_concurrency 16 -> 64" */
export const changeList = (changes: readonly SettingChange[]) =>
  changes.map((c) => `${c.name} ${c.before ?? "(unset)"} -> ${c.after ?? "(unset)"}`).join(", ");

export const changesWorkers = (x: IoReload) => x.io.some((c) => WORKER_SETTINGS.includes(c.name));

/** The newest reload of those that changed `name`, or undefined. */
export const lastReloadOf = (reloads: readonly IoReload[], name: string) => reloads.findLast((x) => x.io.some((c) => c.name === name));

interface ReloadInput {
  reloads: readonly Reload[];
  start: number | null;
  ioMethod: string | undefined;
  recent: readonly Tick[];
}

/**
 * "io_workers 3 -> 1 by a reload at 05:12:10." per reload, the newest
 * first; the newest that resized the io workers says how many are alive
 * since (only samples taken after it was seen).
 */
export function reloadsApplied({ reloads, start, ioMethod, recent }: ReloadInput): Omit<Finding, "since">[] {
  if (start === null) return [];
  const mine = ioReloadsSince(reloads, start);
  const resized = mine.findLast(changesWorkers);
  return mine
    .slice(-MAX_RELOAD_FINDINGS)
    .reverse()
    .map((x) => {
      const sample = x === resized && ioMethod === "worker" ? recent.filter((t) => t.t >= x.reload.seenAt).at(-1) : undefined;
      const alive = sample ? `; ${sample.workers.alive} io worker${sample.workers.alive === 1 ? "" : "s"} alive since` : "";
      const changes = changeList(x.io);
      return {
        id: `reload_applied:${x.reload.at}`,
        rule: "reload_applied" as const,
        severity: "info" as const,
        glance: {
          now: `Reloaded ${formatClock(x.reload.at)}: ${x.io.map((c) => `${c.name} ${c.before ?? "(unset)"}→${c.after ?? "(unset)"}`).join(", ")}`,
          lever: null,
        },
        text: `${changes} by a reload at ${formatClock(x.reload.at)}${alive}.`,
        evidence: { at: x.reload.at, changes },
      };
    });
}
