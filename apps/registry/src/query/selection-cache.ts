/**
 * Answers of recent instance queries, each kept with the signature of the index state it was
 * computed from (the index's change stamps of the services it covers, instance-index.ts). A
 * query whose key and signature both match gets the same frozen array back instead of a new
 * label lookup, filter and sort — as Eureka's response cache serves a service's answer until the
 * service changes. Clients poll the same query far more often than its services change; a
 * 100-of-10 000 answer costs ~0.18 ms of the registry's CPU to compute on this machine and
 * nothing to reuse (docs/performance.md "registry").
 *
 * Bounded twice: at most `maxEntries` answers, and at most `maxInstances` instance references
 * in all (an answer larger than a tenth of that is not kept), least recently used out first.
 */
export class SelectionCache<T> {
  private readonly entries = new Map<string, { signature: string; answer: readonly T[] }>();
  private held = 0;

  constructor(
    private readonly maxEntries = 256,
    private readonly maxInstances = 20_000,
  ) {}

  /** The kept answer for `key` if it was computed at `signature`; a stale one is dropped. */
  get(key: string, signature: string): readonly T[] | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.signature !== signature) {
      this.held -= entry.answer.length;
      return undefined;
    }
    this.entries.set(key, entry); // most recently used last
    return entry.answer;
  }

  /** Keeps `answer` (frozen here: callers share it) for `key` at `signature`; returns it. */
  set(key: string, signature: string, answer: T[]): readonly T[] {
    if (answer.length > this.maxInstances / 10) return answer;
    const frozen = Object.freeze(answer);
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.held -= old.answer.length;
    }
    this.entries.set(key, { signature, answer: frozen });
    this.held += answer.length;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.held <= this.maxInstances) break;
      this.entries.delete(k);
      this.held -= e.answer.length;
    }
    return frozen;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Instance references held in all (the memory bound). */
  get instancesHeld(): number {
    return this.held;
  }
}
