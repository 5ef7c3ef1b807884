// How far a scan has got through one relation file, from the blocks its
// reads had in flight sample by sample (pure).
import type { HandleBlocks } from "./derive";

/**
 * Where a run's async reads of one file have got to. A sequential scan of a
 * table larger than shared_buffers / 4 is synchronized: it starts where
 * another scan of the table is (or stopped) and wraps around at the end, so
 * a block below the first one seen means the scan has wrapped.
 */
export interface ScanSpan {
  dbOid: number;
  filenode: number;
  /** the lowest block in flight when the file was first seen */
  start: number;
  /** the highest block in flight from `start` on, before any wrap */
  high: number;
  /** after a wrap: the furthest block reached below `start` */
  wrappedTo: number | null;
}

export function advanceSpan(span: ScanSpan | undefined, b: HandleBlocks): ScanSpan {
  if (!span) return { dbOid: b.dbOid, filenode: b.filenode, start: b.first, high: b.last, wrappedTo: null };
  // Blocks are handed out in increasing order (mod the relation's size), so
  // every handle issued after the first sample lies above `start` until the
  // scan wraps. A sample straddling the wrap gives its lowest block only.
  if (b.first < span.start) {
    const below = b.last < span.start;
    return {
      ...span,
      high: below ? span.high : Math.max(span.high, b.last),
      wrappedTo: Math.max(span.wrappedTo ?? 0, below ? b.last : b.first),
    };
  }
  return { ...span, high: Math.max(span.high, b.last) };
}

/**
 * A first block seen this close to the relation's start is taken as a scan
 * from block 0 that the sampler met a little late; further in, as a
 * synchronized scan that began there.
 */
const FROM_ZERO_SHARE = 0.1;

/**
 * Share of the relation covered since the first block seen (not the
 * position: a synchronized scan begun mid-table would read 60% at its start
 * and drop at the wrap). Rises monotonically; a scan first seen late reads
 * low by what it covered before.
 */
export function spanProgress(span: ScanSpan, blocks: number): number {
  const start = span.start < blocks * FROM_ZERO_SHARE ? 0 : span.start;
  const done = span.wrappedTo === null ? span.high - start + 1 : blocks - start + span.wrappedTo + 1;
  return Math.max(0, Math.min(1, done / blocks));
}

/** Blocks covered so far: the span's length, from block 0 when it began near it. */
export function spanCovered(span: ScanSpan, blocks: number | null): number {
  const start = blocks !== null && span.start < blocks * FROM_ZERO_SHARE ? 0 : span.start;
  return span.wrappedTo === null ? span.high - start + 1 : (blocks ?? span.high + 1) - start + span.wrappedTo + 1;
}
