// One bench run at a time: two would share the data dir (and each would
// measure the other).
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Takes bench.lock in `dir` (a lock of a dead run is taken over); returns the function that gives it back. */
export function takeLock(dir: string): () => void {
  const file = path.join(dir, "bench.lock");
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, "utf8"));
    let alive: boolean;
    try {
      process.kill(pid, 0);
      alive = pid !== process.pid;
    } catch {
      alive = false;
    }
    if (alive) throw new Error(`another bench run is going on (pid ${pid}, ${file}); wait for it`);
  }
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}
