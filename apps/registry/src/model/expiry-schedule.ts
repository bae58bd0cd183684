/**
 * When to look at an instance again: a min-heap of (time, key) with at most one live entry per
 * key — the earliest. The registry's index uses it to hide instances at their TTL (see
 * heartbeat-age.ts) without scanning every instance: it schedules each instance at its expiry,
 * and when an entry comes due it re-reads the instance — a renewal meanwhile moved the expiry
 * later, so the instance is simply scheduled again. Renewals therefore never touch the heap
 * (its earliest entry for the key is still the earliest), and each instance costs one entry.
 */
interface Entry {
  at: number;
  key: string;
}

export class ExpirySchedule {
  private readonly heap: Entry[] = [];
  /** The live (earliest) time per key; heap entries that disagree with it are stale. */
  private readonly earliest = new Map<string, number>();

  /** Keys with a live entry. */
  get size(): number {
    return this.earliest.size;
  }

  /** Look at `key` again at `at` — unless an entry for it already comes due earlier (or then). */
  schedule(key: string, at: number): void {
    const current = this.earliest.get(key);
    if (current !== undefined && current <= at) return;
    this.earliest.set(key, at);
    this.push({ at, key });
  }

  /** Forget `key` (the instance is gone); its heap entry becomes stale and is dropped when it surfaces. */
  cancel(key: string): void {
    this.earliest.delete(key);
  }

  /** The earliest live time, if any (stale entries on top are dropped on the way). */
  nextAt(): number | undefined {
    this.dropStale();
    return this.heap[0]?.at;
  }

  /** Removes and returns every key whose live entry is at or before `now`, earliest first. */
  due(now: number): string[] {
    const out: string[] = [];
    for (;;) {
      this.dropStale();
      const top = this.heap[0];
      if (!top || top.at > now) return out;
      this.pop();
      this.earliest.delete(top.key);
      out.push(top.key);
    }
  }

  clear(): void {
    this.heap.length = 0;
    this.earliest.clear();
  }

  private dropStale(): void {
    while (this.heap.length > 0) {
      const top = this.heap[0]!;
      if (this.earliest.get(top.key) === top.at) return;
      this.pop();
    }
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= e.at) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = e;
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      let at = last.at;
      if (l < h.length && h[l]!.at < at) {
        smallest = l;
        at = h[l]!.at;
      }
      if (r < h.length && h[r]!.at < at) smallest = r;
      if (smallest === i) break;
      h[i] = h[smallest]!;
      i = smallest;
    }
    h[i] = last;
  }
}
