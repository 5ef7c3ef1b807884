// The live read estimate: the running scans' block positions per second x
// block_size, summed. The page's read-rate "now", and the rate the history
// keeps with each second.
import type { QueryRun } from "../../schemas/runs";

/** The running runs' readBlocksPerSec x block_size, summed; scans without two positions yet are not counted. */
export function liveReadRate(runs: readonly QueryRun[], blockSize: number): { bytesPerSec: number; scans: number } {
  let bytesPerSec = 0;
  let scans = 0;
  for (const r of runs) {
    if (r.endedAt !== null || r.readBlocksPerSec === null) continue;
    bytesPerSec += Math.max(0, r.readBlocksPerSec) * blockSize;
    scans++;
  }
  return { bytesPerSec, scans };
}
