// The runs a burst of samples between the slots is for: started lately, and
// not yet seen reading asynchronously in the samples an async verdict needs
// (VERDICT_MIN_SAMPLES). A scan whose first slot already saw its reads needs
// one more sample, not three: on a small server the burst is most of what
// watching a scan costs beyond the slots.
import type { QueryRun } from "../../schemas/runs";
import { VERDICT_MIN_SAMPLES } from "./verdict";

type RunOf = (id: string) => Pick<QueryRun, "endedAt" | "asyncSamples"> | undefined;

export class FreshRuns {
  private ids = new Set<string>();

  /**
   * After a sample: `seen`, the runs in it; `known`, those running before it.
   * True when it showed a run the sample before did not (a statement started).
   */
  observe(seen: readonly { id: string }[], known: ReadonlySet<string>, runOf: RunOf): boolean {
    let started = false;
    for (const r of seen) {
      if (known.has(r.id)) continue;
      started = true;
      this.ids.add(r.id);
    }
    for (const id of this.ids) {
      const run = runOf(id);
      if (!run || run.endedAt !== null || run.asyncSamples >= VERDICT_MIN_SAMPLES) this.ids.delete(id);
    }
    return started;
  }

  /** A run that started lately is running and not yet seen reading asynchronously enough. */
  get awaiting(): boolean {
    return this.ids.size > 0;
  }

  clear(): void {
    this.ids.clear();
  }
}
