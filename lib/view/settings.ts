// Settings, checks and the banners that explain what this target can show.
import type { Check, Settings, Setting } from "@/lib/schemas/settings";
import type { TargetInfo } from "@/lib/schemas/target";
import { grantMonitorSql, TRACK_IO_TIMING_SQL } from "@/lib/model/window/advice";
import { IO_SETTINGS } from "@/lib/model/window/settings";
import { byCodePoint, majorVersion } from "../format";

/** In the order the server reads them (the io settings first); any other by name. */
const SETTING_ORDER: readonly string[] = IO_SETTINGS;

export interface SettingRow extends Setting {
  name: string;
  /** what the value means here: "unused: io_method = sync", "a limit, not a count" */
  note: string | null;
}

/** Settings only io_method = worker uses. */
const WORKER_ONLY = new Set(["io_workers", "io_min_workers", "io_max_workers", "io_worker_idle_timeout", "io_worker_launch_interval"]);
const LIMITS = new Set(["effective_io_concurrency", "maintenance_io_concurrency", "io_max_concurrency"]);

function settingNote(name: string, method: string | undefined): string | null {
  if (WORKER_ONLY.has(name) && method && method !== "worker") return `unused: io_method = ${method} runs no io workers`;
  if (LIMITS.has(name)) return "a limit, not a count";
  return null;
}

export function settingRows(settings: Settings): SettingRow[] {
  const rank = (name: string) => {
    const i = SETTING_ORDER.indexOf(name);
    return i === -1 ? SETTING_ORDER.length : i;
  };
  const method = settings.io_method?.setting;
  return Object.entries(settings)
    .map(([name, s]) => ({ name, ...s, note: settingNote(name, method) }))
    .sort((a, b) => rank(a.name) - rank(b.name) || byCodePoint(a.name, b.name));
}

const CHECK_RANK = { fail: 0, act: 1, note: 2, unknown: 3, info: 4, pass: 5 } as const satisfies Record<Check["status"], number>;

/** Failures first, then what a finding says to act on, passes last; otherwise as the server sent them. */
export function orderChecks(checks: readonly Check[]): Check[] {
  return checks
    .map((c, i) => ({ c, i }))
    .sort((a, b) => CHECK_RANK[a.c.status] - CHECK_RANK[b.c.status] || a.i - b.i)
    .map(({ c }) => c);
}

export type BannerTone = "info" | "warn" | "error";

export interface Banner {
  id: string;
  tone: BannerTone;
  title: string;
  text: string;
  /** SQL to run, shown as code */
  code?: string;
}

/** What the dashboard cannot show for this target, and what would fix it. */
export function banners(target: TargetInfo, settings: Settings): Banner[] {
  // A target that is down is said once, by the findings and the header, with its error.
  const out: Banner[] = [];
  const caps = target.capabilities;
  if (caps && !caps.aios) {
    const major = majorVersion(target.serverVersion, target.serverVersionNum);
    out.push({
      id: "no-aios",
      tone: "info",
      title: `PostgreSQL ${major ?? target.serverVersion ?? "?"} has no asynchronous I/O; it came in 18`,
      text:
        "There is no pg_aios to sample: the in-flight chart stays empty. What it still shows: active backends, their wait events, query runs" +
        (caps.statIo ? " and pg_stat_io read rates." : "."),
    });
  }
  const denied = [
    caps?.aiosDenied ? "pg_aios (reads in flight)" : null,
    caps && !caps.readAllStats ? "other roles' query text and activity (pg_read_all_stats)" : null,
  ].filter((x): x is string => x !== null);
  // denied is empty without capabilities
  if (caps && denied.length) {
    out.push({
      id: "privileges",
      tone: "warn",
      title: `This role cannot read ${denied.join(" or ")}`,
      text: `Grant the monitoring role to ${caps.role}, the role inflight connects as:`,
      code: grantMonitorSql(caps.role),
    });
  }
  if (settings.track_io_timing && settings.track_io_timing.setting !== "on") {
    out.push({
      id: "track_io_timing",
      tone: "warn",
      title: "track_io_timing is off",
      text: "Read time is unknown in pg_stat_io and pg_stat_statements (it reads 0, not the real time). Turn it on to see how long reads take:",
      code: TRACK_IO_TIMING_SQL,
    });
  }
  const past = historyBanner(target);
  if (past) out.push(past);
  return out;
}

/** The history's samples not being kept (or losing rows to a slow disk): the live page goes on, The history has a hole. */
function historyBanner({ history }: TargetInfo): Banner | null {
  if (!history || (history.on && history.dropped === 0)) return null;
  const dropped = history.dropped ? ` ${history.dropped} row${history.dropped === 1 ? "" : "s"} dropped so far.` : "";
  return history.on
    ? {
        id: "history-dropped",
        tone: "warn",
        title: "Some seconds were not kept on disk",
        text: `The disk was too slow for the history: the live page went on, its ranges have gaps.${dropped}`,
      }
    : {
        id: "history-off",
        tone: "warn",
        title: "The history is not being kept",
        text: `${history.reason ?? "The history's samples cannot be written"}. The live page goes on; ranges before the window cannot be opened.${dropped}`,
      };
}
