import { DEFAULT_CHANGES_LIMIT, type ChangeRecord, type ChangeRetention, type ChangesOptions, type ChangesPage } from './types.ts';
import { encodeChange, encodeFeed } from './memory-journal.ts';

/**
 * One keyspace's change feed in the memory driver: the retained changes `low+1 … head`, in
 * order and with no gap, so the change after `since` is at index `since - low`. The driver
 * appends in the order it applies writes (the event loop is the commit order).
 */
export class MemoryFeed {
  /** Newest change recorded (0 = none). */
  head: number;
  /** Newest change pruned (0 = none). */
  low: number;
  private events: ChangeRecord[] = [];

  constructor(head = 0, low = 0) {
    this.head = head;
    this.low = low;
  }

  /** Appends the next change; `c.seq` must be `head + 1`. */
  append(c: ChangeRecord): void {
    if (c.seq !== this.head + 1) throw new Error(`change feed out of order: ${c.seq} after ${this.head}`);
    this.events.push(c);
    this.head = c.seq;
  }

  /**
   * Replay (journal): a change at or below `head` was already applied and is skipped; one
   * past a gap (which only a damaged journal could hold) restarts the window there, so the
   * feed never serves a hole: readers before it get `expired`.
   */
  appendReplayed(c: ChangeRecord): void {
    if (c.seq <= this.head) return;
    if (c.seq > this.head + 1) {
      this.events = [];
      this.low = c.seq - 1;
      this.head = c.seq - 1;
    }
    this.append(c);
  }

  /** A snapshot's retained change (after its `feed` line set head and low). */
  restore(c: ChangeRecord): void {
    if (c.seq !== this.low + this.events.length + 1 || c.seq > this.head) throw new Error(`retained change ${c.seq} does not follow ${this.low + this.events.length}`);
    this.events.push(c);
  }

  /** After a snapshot's changes are restored: a missing tail means the window starts after it. */
  sealRestored(): void {
    const kept = this.low + this.events.length;
    if (kept < this.head) {
      this.events = [];
      this.low = this.head;
    }
  }

  page(opts: ChangesOptions): ChangesPage {
    const { since } = opts;
    const window = { low: this.low, head: this.head };
    if (since < this.low) return { ...window, expired: true, changes: [], next: since };
    const limit = opts.limit ?? DEFAULT_CHANGES_LIMIT;
    const prefix = opts.prefix ?? '';
    const changes: ChangeRecord[] = [];
    for (let i = since - this.low; i < this.events.length; i++) {
      const c = this.events[i]!;
      if (prefix !== '' && !c.key.startsWith(prefix)) continue;
      changes.push(c);
      if (changes.length === limit) return { ...window, expired: false, changes, next: c.seq };
    }
    return { ...window, expired: false, changes, next: Math.max(since, this.head) };
  }

  /** The newest change outside the retention (the new `low`), or `low` when nothing is. */
  pruneTarget(retention: ChangeRetention, now: number): number {
    let target = retention.maxEvents > 0 ? this.head - retention.maxEvents : 0;
    if (retention.maxAgeMs > 0) {
      const cutoff = now - retention.maxAgeMs;
      for (const c of this.events) if (c.at < cutoff && c.seq > target) target = c.seq;
    }
    return Math.max(this.low, target);
  }

  /** Drops the changes up to `low` (never beyond the head); returns how many. */
  pruneTo(low: number): number {
    const target = Math.min(low, this.head);
    if (target <= this.low) return 0;
    const n = target - this.low;
    this.events.splice(0, n);
    this.low = target;
    return n;
  }

  /** The compaction's lines: the counters, then every retained change. */
  *snapshotLines(namespace: string, keyspace: string): Generator<string> {
    yield encodeFeed(namespace, keyspace, this.head, this.low);
    for (const c of this.events) yield encodeChange(namespace, keyspace, c);
  }
}
