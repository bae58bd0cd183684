import { StateStoreError, type ChangeRecord, type Scope, type StateDriver } from '@orrery/statestore';

/**
 * The change-feed fan-out of one statesvc process (docs/state.md "Change feed").
 *
 * Each keyspace with open streams has one tail: a single reader that follows the driver's feed
 * (woken by `watchChanges`, and polled as a fallback for lost NOTIFYs) into a short ring of the
 * newest changes. A stream whose position the ring covers is served from it; one further back
 * (resuming, or slow) reads the driver itself, page by page, until the ring covers it. So 500
 * streams following one keyspace cost one driver read per wake-up, not 500, and a stream that
 * falls behind never holds the others up.
 *
 * Every stream's cursor only moves forward past what it was handed, and each stream is pumped by
 * one loop at a time: changes reach it in `seq` order, each once.
 */

type FeedDriver = Pick<StateDriver, 'changes' | 'changeWindow' | 'watchChanges'>;
type NsKs = Pick<Scope, 'namespace' | 'keyspace'>;

export interface FeedSink {
  /**
   * Takes changes in order (all after the stream's previous position, matching its prefix).
   * Returns false when it cannot take more for now (socket buffer full): the stream stops until
   * `resume()`, and later catches up from the driver.
   */
  deliver(changes: readonly ChangeRecord[]): boolean;
  /** The stream cannot go on: `changes_expired` (a StateStoreError) or a driver failure. */
  fail(err: unknown): void;
  /** The server is shutting down (closeAll): end the response, the client resumes elsewhere. */
  interrupt(): void;
}

export interface FeedStream {
  /** The highest `seq` this stream has covered (delivered, or skipped by its prefix). */
  readonly cursor: number;
  resume(): void;
  close(): void;
}

export interface ChangeFeedHubOptions {
  /** Poll each followed keyspace this often even without a wake-up (a lost NOTIFY). Default 1000 ms. */
  pollMs?: number;
  /** Changes per driver read. Default 500. */
  pageSize?: number;
  /** The ring keeps at most this many of the newest changes… Default 2048. */
  ringEvents?: number;
  /** …and at most about this many bytes of keys and values. Default 8 MiB. */
  ringBytes?: number;
}

export function changesExpired(since: number, low: number): StateStoreError {
  return new StateStoreError(
    'changes_expired',
    `changes after ${since} are no longer kept (the oldest position this keyspace's feed can resume from is ${low}); re-read the keys (GET /v1/state?prefix=) and follow from now (GET /v1/changes without since)`,
  );
}

class Stream implements FeedStream {
  cursor: number;
  closed = false;
  paused = false;
  pumping = false;
  again = false;

  constructor(
    readonly tail: Tail,
    readonly prefix: string,
    since: number,
    readonly sink: FeedSink,
  ) {
    this.cursor = since;
  }

  resume(): void {
    if (this.closed || !this.paused) return;
    this.paused = false;
    this.tail.pump(this);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.tail.remove(this);
  }
}

/** One followed keyspace: its reader, its ring and its streams. */
class Tail {
  /** Highest `seq` read into the ring; -1 until the first read. */
  seq = -1;
  /** The newest changes, contiguous, ending at `seq`. */
  private ring: ChangeRecord[] = [];
  private ringStart = 0;
  private ringBytes = 0;
  readonly streams = new Set<Stream>();
  private refreshing = false;
  private refreshAgain = false;
  private readonly unwatch: () => void;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly hub: ChangeFeedHub,
    readonly scope: NsKs,
    readonly id: string,
  ) {
    this.unwatch = hub.driver.watchChanges(scope, () => this.refresh());
    this.timer = setInterval(() => this.refresh(), hub.pollMs);
    this.timer.unref();
  }

  private get size(): number {
    return this.ring.length - this.ringStart;
  }

  /** True when the ring holds every change after `cursor` up to `seq`. */
  covers(cursor: number): boolean {
    return this.seq >= 0 && cursor <= this.seq && cursor >= this.seq - this.size;
  }

  /** The ring's changes after `cursor` (which it covers) matching `prefix`. */
  after(cursor: number, prefix: string): ChangeRecord[] {
    const out: ChangeRecord[] = [];
    for (let i = this.ringStart + cursor - (this.seq - this.size); i < this.ring.length; i++) {
      const c = this.ring[i]!;
      if (prefix === '' || c.key.startsWith(prefix)) out.push(c);
    }
    return out;
  }

  /** Reads the driver's new changes into the ring, then pumps every stream. One at a time. */
  refresh(): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    void this.readNew().finally(() => {
      this.refreshing = false;
      if (this.refreshAgain && this.streams.size > 0) {
        this.refreshAgain = false;
        this.refresh();
      }
    });
  }

  private async readNew(): Promise<void> {
    try {
      if (this.seq < 0) this.seq = (await this.hub.driver.changeWindow(this.scope)).head;
      for (;;) {
        const page = await this.hub.driver.changes(this.scope, { since: this.seq, limit: this.hub.pageSize });
        if (page.expired) {
          // Pruned past the tail (it could not keep up): the ring starts over at the head; streams read the driver and learn they expired.
          this.clearRing();
          this.seq = page.head;
          break;
        }
        for (const c of page.changes) this.push(c);
        this.seq = Math.max(this.seq, page.next);
        if (page.next >= page.head) break;
      }
    } catch {
      // The driver is unreachable: streams notice on their own reads; the poll tries again.
    }
    for (const s of this.streams) this.pump(s);
  }

  private push(c: ChangeRecord): void {
    this.ring.push(c);
    this.ringBytes += c.key.length + (c.value?.length ?? 0) + 64;
    while (this.size > this.hub.ringEvents || (this.ringBytes > this.hub.ringMaxBytes && this.size > 1)) {
      const old = this.ring[this.ringStart++]!;
      this.ringBytes -= old.key.length + (old.value?.length ?? 0) + 64;
    }
    if (this.ringStart > 1024 && this.ringStart * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.ringStart);
      this.ringStart = 0;
    }
  }

  private clearRing(): void {
    this.ring = [];
    this.ringStart = 0;
    this.ringBytes = 0;
  }

  /** Brings one stream up to date: from the ring when it covers the stream, else from the driver. */
  pump(s: Stream): void {
    if (s.pumping) {
      s.again = true;
      return;
    }
    s.pumping = true;
    void this.pumpLoop(s).finally(() => {
      s.pumping = false;
    });
  }

  private async pumpLoop(s: Stream): Promise<void> {
    try {
      do {
        s.again = false;
        while (!s.closed && !s.paused) {
          if (this.covers(s.cursor)) {
            const batch = this.after(s.cursor, s.prefix);
            s.cursor = this.seq;
            if (batch.length > 0 && !s.sink.deliver(batch)) s.paused = true;
            break;
          }
          const page = await this.hub.driver.changes(this.scope, { since: s.cursor, prefix: s.prefix, limit: this.hub.pageSize });
          if (s.closed) return;
          if (page.expired) throw changesExpired(s.cursor, page.low);
          s.cursor = page.next;
          if (page.changes.length > 0 && !s.sink.deliver(page.changes)) s.paused = true;
          if (page.next >= page.head) break;
        }
      } while (s.again && !s.closed && !s.paused);
    } catch (err) {
      if (s.closed) return;
      s.close();
      s.sink.fail(err);
    }
  }

  remove(s: Stream): void {
    this.streams.delete(s);
    if (this.streams.size === 0) {
      this.unwatch();
      clearInterval(this.timer);
      this.hub.forget(this);
    }
  }
}

export class ChangeFeedHub {
  readonly pollMs: number;
  readonly pageSize: number;
  readonly ringEvents: number;
  readonly ringMaxBytes: number;
  private readonly tails = new Map<string, Tail>();

  constructor(
    readonly driver: FeedDriver,
    opts: ChangeFeedHubOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? 1000;
    this.pageSize = opts.pageSize ?? 500;
    this.ringEvents = opts.ringEvents ?? 2048;
    this.ringMaxBytes = opts.ringBytes ?? 8 * 1024 * 1024;
  }

  /** Open streams of one keyspace in this process. */
  streams(scope: NsKs): number {
    return this.tails.get(`${scope.namespace}/${scope.keyspace}`)?.streams.size ?? 0;
  }

  /** Every open stream in this process. */
  get total(): number {
    let n = 0;
    for (const t of this.tails.values()) n += t.streams.size;
    return n;
  }

  /** Follows the keyspace's changes after `since` (matching `prefix`) into `sink`, starting now. */
  subscribe(scope: NsKs, opts: { since: number; prefix?: string }, sink: FeedSink): FeedStream {
    const id = `${scope.namespace}/${scope.keyspace}`;
    let tail = this.tails.get(id);
    if (!tail) {
      tail = new Tail(this, { namespace: scope.namespace, keyspace: scope.keyspace }, id);
      this.tails.set(id, tail);
      tail.refresh();
    }
    const stream = new Stream(tail, opts.prefix ?? '', opts.since, sink);
    tail.streams.add(stream);
    tail.pump(stream);
    return stream;
  }

  /** Closes every stream (shutdown) and tells its sink to end. */
  closeAll(): void {
    for (const t of [...this.tails.values()]) {
      for (const s of [...t.streams]) {
        s.close();
        s.sink.interrupt();
      }
    }
  }

  forget(tail: Tail): void {
    if (this.tails.get(tail.id) === tail) this.tails.delete(tail.id);
  }
}
