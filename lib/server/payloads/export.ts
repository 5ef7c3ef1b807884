import "server-only";
// The window's ticks as CSV, one row a tick. States and wait events
// become columns of their own, named from what the window holds.
import type { Tick } from "../../schemas/tick";

/** The configured io workers' column: io_workers on 18, and on 19 the pool's io_min_workers, named for it. */
const baseColumns = (pool: boolean) =>
  [
    "seq",
    "t",
    "time",
    "async_in_flight",
    "async_bytes",
    "sync_handles",
    "sync_bytes",
    pool ? "io_min_workers" : "io_workers_configured",
    "io_workers_alive",
    "io_workers_busy",
    "active_backends",
  ] as const;
/** 19's pool: only when a tick has it. */
const POOL_COLUMNS = ["io_workers_max", "io_workers_launched", "io_workers_exited"] as const;

/** One CSV cell. A text that a spreadsheet would run as a formula (=, +, -, @,
 * tab, CR first) is prefixed with ', so a future text column cannot inject one. */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function ticksToCsv(ticks: Tick[]): string {
  const states = [...new Set(ticks.flatMap((t) => Object.keys(t.aio?.byState ?? {})))].sort();
  const waits = [...new Set(ticks.flatMap((t) => Object.keys(t.waits)))].sort();
  const pool = ticks.some((t) => t.workers.max !== undefined);
  const header = [
    ...baseColumns(pool),
    ...(pool ? POOL_COLUMNS : []),
    ...states.map((s) => `async_${s}`),
    ...waits.map((w) => `wait_${w}`),
  ];
  const lines = [header.map(csvCell).join(",")];
  for (const t of ticks) {
    const row: (string | number | null)[] = [
      t.seq,
      t.t,
      new Date(t.t).toISOString(),
      // Empty where pg_aios was not read in that sample (unknown, not zero).
      t.aio?.inFlight ?? null,
      t.aio?.bytes ?? null,
      t.aio?.sync ?? null,
      t.aio?.syncBytes ?? null,
      t.workers.configured,
      t.workers.alive,
      t.workers.busy,
      t.active,
      ...(pool ? [t.workers.max ?? null, t.workers.launched ?? 0, t.workers.exited ?? 0] : []),
      ...states.map((s) => (t.aio ? (t.aio.byState[s] ?? 0) : null)),
      ...waits.map((w) => t.waits[w] ?? 0),
    ];
    lines.push(row.map(csvCell).join(","));
  }
  return lines.join("\n") + "\n";
}

/** A file name safe for Content-Disposition: target, range, extension. */
export function exportFileName(target: string, from: number | undefined, to: number | undefined, ext: "json" | "csv"): string {
  const stamp = (ms: number) => new Date(ms).toISOString().replace(/[:.]/g, "-");
  const range =
    from !== undefined || to !== undefined
      ? `-${from !== undefined ? stamp(from) : "start"}_${to !== undefined ? stamp(to) : "now"}`
      : `-${stamp(Date.now())}`;
  return `inflight-${target.replace(/[^a-z0-9_.-]/gi, "_")}${range}.${ext}`;
}
