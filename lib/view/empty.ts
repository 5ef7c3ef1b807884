// Why a panel has nothing to show, in words that match the target's state:
// a target that is down says so with its error, never a guess such as
// "no read is running" or "not installed".
import type { TargetInfo } from "@/lib/schemas/target";
import { formatClock } from "@/lib/format";

type Target = Pick<TargetInfo, "name" | "status" | "statusSince" | "lastError">;

/** "demo is down since 10:41:02: connection refused."; null while up. */
export function downText(target: Target): string | null {
  if (target.status === "up") return null;
  const what = target.status === "down" ? `is down since ${formatClock(target.statusSince)}` : "is not reachable yet";
  return `${target.name} ${what}${target.lastError ? `: ${target.lastError}` : ""}.`;
}

/** The in-flight chart's message, null when it has something to draw. */
export function inFlightEmpty(target: Target & Pick<TargetInfo, "ioMethod" | "capabilities">, points: number): string | null {
  const caps = target.capabilities;
  if (caps && !caps.aios) return "This server has no pg_aios: nothing to sample (PostgreSQL 18+)";
  if (caps?.aiosDenied) return "pg_aios is denied to this role: GRANT pg_monitor TO it to see reads in flight";
  if (points > 0) return null;
  const down = downText(target);
  if (down) return `${down} Nothing sampled since.`;
  if (target.ioMethod === "sync")
    return "No async reads: io_method = sync reads synchronously (f_sync handles, if any, are the dashed line)";
  return "No async reads in flight in view: no read is running";
}

/** A time chart with no sample in view: the target's state first. */
export function noSamples(target: Target, what: string): string {
  const down = downText(target);
  return down ? `${down} Nothing sampled since.` : what;
}

/** The statements panel's message when it has no rows: down, unavailable (with why), or nothing finished. */
export function statementsEmpty(target: Target & Pick<TargetInfo, "aspects">, note: string | null): string {
  const down = downText(target);
  if (down) return `${down} pg_stat_statements is read again when it answers.`;
  const aspect = target.aspects.find((a) => a.aspect === "statements");
  if (aspect?.state === "unavailable") return aspect.note ?? note ?? "pg_stat_statements cannot be read here.";
  if (aspect?.state === "failing") return `pg_stat_statements cannot be read: ${aspect.lastError ?? "error"}`;
  if (aspect?.state === "waiting") return "pg_stat_statements not read yet (every 10 s).";
  return "No statement completed in the window.";
}
