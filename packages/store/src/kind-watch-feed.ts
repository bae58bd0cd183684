/**
 * Every watch of one kind on the local store, fed by one reader. Each watch used to run its own
 * query after every write of its kind and on its own safety poll: with the operator's watches, the
 * executor view's, the routers' and the console's (a score in `orrery up`), the event-table reads
 * were half of the embedded database's time in a soak (docs/performance.md). Now a write of a kind
 * costs one read of its new events, handed to each watch of the kind at or past its own cursor.
 *
 * Each watch keeps its own cursor (a watch resumed from an older resourceVersion reads from
 * there; the others skip what they have seen) and its namespace filter; events reach a watch in
 * resourceVersion order, and a closed watch gets nothing more. The first watch gets the row's
 * object, every other one its own copy: a watcher that changes what it was handed changes no one
 * else's.
 */
import type { Resource } from '@orrery/spec';
import type { WatchEnding } from './watch-ending.ts';
import type { WatchEvent, WatchEventType } from './types.ts';

export interface FeedEventRow {
  resource_version: string | number;
  namespace: string;
  type: string;
  object: Resource;
}

export interface KindWatchFeedOptions {
  /** Up to `limit` events of the kind after `afterRv`, oldest first. */
  read(afterRv: number, limit: number): Promise<FeedEventRow[]>;
  /** The store's newest resourceVersion (where a watch without one starts). */
  currentRv(): Promise<number>;
  /** Events read per query. */
  batch: number;
  /** Whether the store is closed (a read failing then ends no watch). */
  closed(): boolean;
  /** The feed has no watch left: drop it (its caller's signal listener and poll timer). */
  onEmpty(): void;
}

export interface FeedWatch {
  namespace?: string;
  /** Last resourceVersion this watch has seen; undefined: start at the store's current one. */
  cursor: number | undefined;
  onEvent(e: WatchEvent): void;
  ending: WatchEnding;
}

export class KindWatchFeed {
  private readonly watches = new Set<FeedWatch>();
  private running = false;
  private again = false;

  constructor(private readonly o: KindWatchFeedOptions) {}

  get size(): number {
    return this.watches.size;
  }

  add(w: FeedWatch): void {
    this.watches.add(w);
    void this.pump();
  }

  remove(w: FeedWatch): void {
    if (!this.watches.delete(w)) return;
    if (this.watches.size === 0) this.o.onEmpty();
  }

  /** A write of the kind, or the safety poll: read what is new. */
  async pump(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        if ([...this.watches].some((w) => w.cursor === undefined)) {
          const rv = await this.o.currentRv();
          for (const w of this.watches) w.cursor ??= rv;
        }
        for (;;) {
          const live = [...this.watches].filter((w) => !w.ending.ended && w.cursor !== undefined);
          if (live.length === 0) break;
          const from = Math.min(...live.map((w) => w.cursor!));
          const batch = await this.o.read(from, this.o.batch);
          for (const ev of batch) deliver(live, ev);
          if (batch.length < this.o.batch) break;
        }
      } while (this.again && this.watches.size > 0);
    } catch (err) {
      if (!this.o.closed()) for (const w of [...this.watches]) w.ending.end(err);
    } finally {
      this.running = false;
    }
  }
}

function deliver(live: readonly FeedWatch[], ev: FeedEventRow): void {
  const rv = Number(ev.resource_version);
  let handed = false;
  for (const w of live) {
    if (w.ending.ended || rv <= w.cursor!) continue;
    w.cursor = rv;
    if (w.namespace && ev.namespace !== w.namespace) continue;
    const object = handed ? structuredClone(ev.object) : ev.object;
    handed = true;
    try {
      w.onEvent({ type: ev.type as WatchEventType, object, resourceVersion: rv });
    } catch (err) {
      // A watcher's own failure ends its watch, not its neighbours'.
      w.ending.end(err);
    }
  }
}
