// A ring buffer bounded by time: items older than `spanMs` before the newest
// are dropped as new ones arrive, so memory is flat once the window is full.
// Items must arrive in non-decreasing `t` order.
export class TimeRing<T extends { t: number }> {
  private items: (T | undefined)[];
  private head = 0; // index of the oldest item
  private size = 0;

  constructor(
    private readonly spanMs: number,
    initialCapacity = 1024,
  ) {
    this.items = new Array(initialCapacity);
  }

  get length(): number {
    return this.size;
  }

  push(item: T): void {
    const last = this.last();
    if (last && item.t < last.t) throw new Error("TimeRing: items must arrive in time order");
    this.evictBefore(item.t - this.spanMs);
    if (this.size === this.items.length) this.grow();
    this.items[(this.head + this.size) % this.items.length] = item;
    this.size++;
  }

  /** Drops items older than `cutoff` (ms). */
  evictBefore(cutoff: number): void {
    while (this.size > 0) {
      const oldest = this.items[this.head]!;
      if (oldest.t >= cutoff) break;
      this.items[this.head] = undefined;
      this.head = (this.head + 1) % this.items.length;
      this.size--;
    }
  }

  at(index: number): T | undefined {
    if (index < 0 || index >= this.size) return undefined;
    return this.items[(this.head + index) % this.items.length];
  }

  first(): T | undefined {
    return this.at(0);
  }

  last(): T | undefined {
    return this.at(this.size - 1);
  }

  toArray(): T[] {
    const out: T[] = new Array(this.size);
    for (let i = 0; i < this.size; i++) out[i] = this.items[(this.head + i) % this.items.length]!;
    return out;
  }

  /** Items after the first one for which `isAfter` is true, by binary search
   * on a key that grows with position (such as seq). */
  since(isAfter: (item: T) => boolean): T[] {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (isAfter(this.at(mid)!)) hi = mid;
      else lo = mid + 1;
    }
    const out: T[] = [];
    for (let i = lo; i < this.size; i++) out.push(this.at(i)!);
    return out;
  }

  private grow(): void {
    const bigger: (T | undefined)[] = new Array(this.items.length * 2);
    for (let i = 0; i < this.size; i++) bigger[i] = this.items[(this.head + i) % this.items.length];
    this.items = bigger;
    this.head = 0;
  }
}
