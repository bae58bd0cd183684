/**
 * The activator's per-revision FIFO (Knative activator semantics): requests that cannot be
 * admitted wait here in arrival order, bounded in depth (full → the caller answers 503
 * queue_full), and are released in order when a slot frees or an endpoint appears.
 * Pure: the caller owns timers and I/O; a waiter that gave up is removed lazily.
 */

export interface Waiter {
  /** Set by the queue when the waiter leaves (granted or cancelled); a cancelled waiter is skipped. */
  done: boolean;
}

export class WaitingQueue<W extends Waiter> {
  private items: Array<W | undefined> = [];
  private head = 0;
  private live = 0;

  constructor(readonly maxDepth: number) {}

  /** Waiting requests (cancelled ones excluded). */
  get size(): number {
    return this.live;
  }

  /** False when the queue is full. A waiter granted before may wait again (its worker died after admitting it). */
  push(w: W): boolean {
    if (this.live >= this.maxDepth) return false;
    // A waiter that left a queue once is marked done; pushed again it is live, or drain would skip
    // it as cancelled (it then waited for its timeout, and its count never left `size`).
    w.done = false;
    this.items.push(w);
    this.live++;
    return true;
  }

  /** The waiter gave up (timeout, client gone). Idempotent. */
  cancel(w: W): void {
    if (w.done) return;
    w.done = true;
    this.live--;
    if (this.live === 0) this.compact();
  }

  /**
   * Offers slots to waiters in order: `tryGrant(w)` returns true when it admitted w.
   * Stops at the first waiter that cannot be admitted (later ones would not be either, and
   * must not overtake it). Returns how many were granted.
   */
  drain(tryGrant: (w: W) => boolean): number {
    let granted = 0;
    while (this.head < this.items.length) {
      const w = this.items[this.head]!;
      if (w.done) {
        this.items[this.head++] = undefined;
        continue;
      }
      if (!tryGrant(w)) break;
      w.done = true;
      this.live--;
      this.items[this.head++] = undefined;
      granted++;
    }
    if (this.head > 1024 && this.head * 2 > this.items.length) this.compact();
    return granted;
  }

  /** The waiters still waiting, in order (a copy: the caller may cancel them as it goes). */
  waiting(): W[] {
    const out: W[] = [];
    for (let i = this.head; i < this.items.length; i++) {
      const w = this.items[i];
      if (w && !w.done) out.push(w);
    }
    return out;
  }

  private compact(): void {
    this.items = this.items.slice(this.head).filter((w): w is W => w !== undefined && !w.done);
    this.head = 0;
  }
}
