/**
 * How many worker processes of the local platform start at once (spawned, not yet listening).
 * A Node worker's start is ~100 ms of CPU; a rollout on several functions at once spawned a
 * dozen of them on two cores, and for that second every process serving requests got a small
 * share of the CPU (docs/performance.md "soak"). Starts beyond `limit` wait, in arrival order,
 * for one in progress to end. An urgent start — the first worker of a revision or pool with
 * none ready or starting, which a cold request may be waiting for — never waits: it runs at once
 * and counts against the limit like the others. A limit of 0 means no limit.
 */
export class WorkerStartSlots {
  private running = 0;
  private readonly waiting: Entry[] = [];
  /** Starts that had to wait for a slot, and their waits' sum (for /metrics). */
  private waited = 0;
  private waitedMs = 0;

  /** Seam for tests. */
  now: () => number = () => performance.now();

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`worker start slots: limit must be an integer ≥ 0, got ${limit}`);
  }

  /**
   * Runs `go` once a slot is free (at once when one is, or when `urgent`). Returns the slot's
   * release, to call when the start is over (listening, exited, stopped); before `go` ran it
   * withdraws the request instead. Calling it again does nothing.
   */
  take(urgent: boolean, go: () => void): () => void {
    const entry: Entry = { go, state: 'waiting', since: this.now() };
    if (urgent || this.free()) this.run(entry);
    else this.waiting.push(entry);
    return () => this.release(entry);
  }

  /** Starts in progress and waiting now, for status and tests. */
  counts(): { starting: number; waiting: number } {
    return { starting: this.running, waiting: this.waiting.length };
  }

  /** Starts that waited for a slot so far, and their waits' sum. */
  waits(): { count: number; seconds: number } {
    return { count: this.waited, seconds: this.waitedMs / 1000 };
  }

  private free(): boolean {
    return this.limit === 0 || this.running < this.limit;
  }

  private release(entry: Entry): void {
    if (entry.state === 'done') return;
    if (entry.state === 'waiting') {
      this.waiting.splice(this.waiting.indexOf(entry), 1);
      entry.state = 'done';
      return;
    }
    entry.state = 'done';
    this.running--;
    while (this.free() && this.waiting.length) {
      const next = this.waiting.shift()!;
      this.waited++;
      this.waitedMs += this.now() - next.since;
      this.run(next);
    }
  }

  private run(entry: Entry): void {
    entry.state = 'running';
    this.running++;
    entry.go();
  }
}

interface Entry {
  go: () => void;
  state: 'waiting' | 'running' | 'done';
  since: number;
}
