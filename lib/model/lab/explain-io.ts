// EXPLAIN (ANALYZE, IO) of PostgreSQL 19 (pure): per SeqScan, BitmapHeapScan
// and TidRangeScan node, the read stream's prefetch distance against its
// capacity and the I/Os it issued, the read-ahead depth the labs could only
// infer before. 18's EXPLAIN has no IO option: its runs carry none.
import { z } from "zod";
import type { LabMethodSummary, LabScanIo } from "../../schemas/lab";
import { formatNumber } from "../../format";

/** The JSON keys 19 gives a scan node under IO; "I/O Count" and the rest only when it issued any. */
const IoNode = z.looseObject({
  "Node Type": z.string(),
  "Average Prefetch Distance": z.number(),
  "Max Prefetch Distance": z.number(),
  "Prefetch Capacity": z.number(),
  "I/O Count": z.number().optional(),
  "I/O Waits": z.number().optional(),
  "Average I/O Size": z.number().optional(),
  "Average I/Os In Progress": z.number().optional(),
});

function nodes(plan: unknown, out: unknown[] = []): unknown[] {
  if (!plan || typeof plan !== "object") return out;
  out.push(plan);
  const children = (plan as { Plans?: unknown }).Plans;
  if (Array.isArray(children)) for (const child of children) nodes(child, out);
  return out;
}

/**
 * The scan node that issued the most I/Os, with its own figures (under a
 * parallel query the node's are the whole scan's, its per-worker ones are in
 * "Workers"); null when the plan has none (18, or a plan with no such scan).
 */
export function scanIo(json: unknown): LabScanIo | null {
  const top = Array.isArray(json) ? (json[0] as { Plan?: unknown } | undefined)?.Plan : undefined;
  let best: LabScanIo | null = null;
  for (const node of nodes(top)) {
    const parsed = IoNode.safeParse(node);
    if (!parsed.success) continue;
    const n = parsed.data;
    const io: LabScanIo = {
      node: n["Node Type"],
      prefetchAvg: n["Average Prefetch Distance"],
      prefetchMax: n["Max Prefetch Distance"],
      capacity: n["Prefetch Capacity"],
      ioCount: n["I/O Count"] ?? 0,
      ioWaits: n["I/O Waits"] ?? 0,
      ioSizeBlocks: n["Average I/O Size"] ?? null,
      inProgress: n["Average I/Os In Progress"] ?? null,
    };
    if (!best || io.ioCount > best.ioCount) best = io;
  }
  return best;
}

/** The average distance at least this share of the capacity: it sat at the capacity. */
export const AT_CAPACITY_SHARE = 0.9;

/** One line per method whose prefetch distance sat at its capacity: read-ahead was the limit. */
export function readAheadLimits(summary: readonly LabMethodSummary[]): string[] {
  return summary.flatMap((s) => {
    const io = s.io;
    if (!io || io.capacity <= 0 || io.prefetchAvg < io.capacity * AT_CAPACITY_SHARE) return [];
    return [
      `${s.method}: the prefetch distance sat at its capacity (average ${io.prefetchAvg.toFixed(1)} of ${io.capacity}): read-ahead was the limit: raise effective_io_concurrency`,
    ];
  });
}

/** "3.4 / 15 / 23" */
export function prefetchText(io: LabScanIo | null | undefined): string {
  return io ? `${io.prefetchAvg.toFixed(1)} / ${io.prefetchMax} / ${io.capacity}` : "–";
}

/** "147 I/Os, 101 waited, 13.9 blocks, 1.0 in progress" */
export function ioText(io: LabScanIo | null | undefined): string {
  if (!io) return "–";
  const size = io.ioSizeBlocks === null ? "" : `, ${io.ioSizeBlocks.toFixed(1)} blocks`;
  const inProgress = io.inProgress === null ? "" : `, ${io.inProgress.toFixed(1)} in progress`;
  return `${formatNumber(io.ioCount)} I/Os, ${formatNumber(io.ioWaits)} waited${size}${inProgress}`;
}

/** Said on a server without EXPLAIN (IO). */
export const NO_EXPLAIN_IO =
  "EXPLAIN (IO), each scan's prefetch distance and I/Os, comes with PostgreSQL 19; this server's EXPLAIN has no IO option.";
