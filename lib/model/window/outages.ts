// The times a target could not be sampled, as gaps: one open at most, the
// oldest dropped past a bound, and those older than the window evicted.
import type { Outage } from "../../schemas/window";

const MAX_OUTAGES = 200;

export class OutageLog {
  private list: Outage[] = [];

  get all(): readonly Outage[] {
    return this.list;
  }

  /** A gap starts at `t` (or the open one takes the newer error); true when a new one started. */
  down(t: number, error: string): boolean {
    const open = this.list.at(-1);
    if (open && open.to === null) {
      open.error = error;
      return false;
    }
    this.list.push({ from: t, to: null, error });
    if (this.list.length > MAX_OUTAGES) this.list.shift();
    return true;
  }

  up(t: number): void {
    const open = this.list.at(-1);
    if (open && open.to === null) open.to = t;
  }

  evictBefore(cutoff: number): void {
    while (this.list.length && this.list[0].to !== null && this.list[0].to < cutoff) this.list.shift();
  }
}
