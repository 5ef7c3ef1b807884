// pg_stat_io is cumulative: the window keeps deltas per interval.
import type { IoRow, IoSample } from "../../schemas/tick";
import type { StatIoRow } from "../../schemas/rows";

export type IoCounters = Map<string, StatIoRow>;

function key(row: StatIoRow): string {
  return `${row.backend_type}|${row.object}|${row.context}`;
}

export function toCounters(rows: StatIoRow[]): IoCounters {
  return new Map(rows.map((r) => [key(r), r]));
}

const FIELDS = [
  ["reads", "reads"],
  ["readBytes", "read_bytes"],
  ["readTime", "read_time"],
  ["hits", "hits"],
  ["writes", "writes"],
  ["writeBytes", "write_bytes"],
  ["extends", "extends"],
  ["evictions", "evictions"],
] as const satisfies readonly (readonly [keyof IoRow, keyof StatIoRow])[];

/**
 * Deltas from `prev` to `next`, non-zero rows only. Null when a counter went
 * backwards (stats reset or server restart): that interval is not a rate.
 */
export function ioDelta(prev: IoCounters, next: IoCounters, t: number, intervalMs: number): Omit<IoSample, "seq"> | null {
  const rows: IoRow[] = [];
  const totals = { reads: 0, readBytes: 0, readTime: 0, hits: 0 };
  for (const [k, cur] of next) {
    const old = prev.get(k);
    if (!old) continue;
    const row: IoRow = {
      backendType: cur.backend_type,
      object: cur.object,
      context: cur.context,
      reads: 0,
      readBytes: 0,
      readTime: 0,
      hits: 0,
      writes: 0,
      writeBytes: 0,
      extends: 0,
      evictions: 0,
    };
    let any = false;
    for (const [out, col] of FIELDS) {
      const d = (cur[col] as number) - (old[col] as number);
      if (d < 0) return null;
      if (d > 0) any = true;
      row[out] = d;
    }
    if (!any) continue;
    rows.push(row);
    totals.reads += row.reads;
    totals.readBytes += row.readBytes;
    totals.readTime += row.readTime;
    totals.hits += row.hits;
  }
  return { t, intervalMs, rows, totals };
}
