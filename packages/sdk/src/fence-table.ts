/**
 * The fences this worker process holds, per key (docs/state.md "Fencing"). A key's first write
 * in the process claims one (`POST /v1/fences/{key}`) and every later write of the key sends it;
 * concurrent first writes share one claim (a second claim would fence the first's writes). The
 * table is bounded: past `max` keys the oldest claim is forgotten, and that key claims again on
 * its next write (safe: the new fence supersedes the old one this process held).
 */
export class FenceTable {
  private readonly fences = new Map<string, Promise<number>>();

  constructor(private readonly max = 10_000) {}

  /** The key's fence, claimed now with `claim` when this process holds none or when `fresh` (the key moved here). */
  fenceFor(key: string, claim: (key: string) => Promise<number>, fresh = false): Promise<number> {
    const held = fresh ? undefined : this.fences.get(key);
    if (held) return held;
    const claimed = claim(key);
    this.fences.delete(key); // re-inserted last: the eviction order is the claim order
    this.fences.set(key, claimed);
    // A failed claim is not kept: the next write tries again.
    claimed.catch(() => {
      if (this.fences.get(key) === claimed) this.fences.delete(key);
    });
    if (this.fences.size > this.max) this.fences.delete(this.fences.keys().next().value!);
    return claimed;
  }

  /** Keys with a fence held (or being claimed). */
  get size(): number {
    return this.fences.size;
  }
}
