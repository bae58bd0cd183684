/**
 * Writes to one keyspace that arrive in the same event-loop iteration leave as one statement,
 * so they commit in one transaction.
 *
 * Why: the change feed makes writes of one keyspace commit one at a time (each holds the
 * keyspace's head row from its change record to its commit, WAL flush included: migration
 * 0005), so N concurrent PUTs waited for N flushes in a row where a plain upsert group-commits.
 * One transaction for the batch pays one flush (migration 0008, orrery_state_set_batch).
 *
 * A batch holds each key once: a second write of a key in the same iteration opens the next
 * batch, which leaves after the first in the same flush. The two writes were concurrent
 * requests, so either order is a valid one.
 *
 * Pure: the statement (`load`) and the scheduler are injected; `load` answers one result per
 * write, in order, and a write it could not place is the caller's to retry alone.
 */
export interface WriteBatcherOptions<S, W, R> {
  load: (scope: S, writes: Array<{ key: string; write: W }>) => Promise<R[]>;
  /** Runs the flush after the writes of this event-loop iteration arrived. */
  schedule?: (flush: () => void) => void;
  /** Writes per statement at most. */
  maxWrites?: number;
}

interface Pending<W, R> {
  key: string;
  write: W;
  resolve: (r: R) => void;
  reject: (err: unknown) => void;
}

interface Batch<S, W, R> {
  scope: S;
  keys: Set<string>;
  writes: Array<Pending<W, R>>;
}

export const DEFAULT_WRITE_BATCH_SIZE = 64;

export class WriteBatcher<S, W, R> {
  /** Per scope id, the batches to send; only the last one takes new writes. */
  private pending = new Map<string, Array<Batch<S, W, R>>>();
  private scheduled = false;
  private readonly load: WriteBatcherOptions<S, W, R>['load'];
  private readonly schedule: (flush: () => void) => void;
  private readonly maxWrites: number;
  private readonly flushBound = () => this.flush();

  constructor(opts: WriteBatcherOptions<S, W, R>) {
    this.load = opts.load;
    this.schedule = opts.schedule ?? setImmediate;
    this.maxWrites = opts.maxWrites ?? DEFAULT_WRITE_BATCH_SIZE;
    if (!(this.maxWrites >= 1)) throw new Error('a write batch needs room for at least one write');
  }

  /** Queues `write` of `key` in `scope` (`scopeId` names the scope); resolves with its result. */
  submit(scopeId: string, scope: S, key: string, write: W): Promise<R> {
    let batches = this.pending.get(scopeId);
    if (!batches) {
      batches = [];
      this.pending.set(scopeId, batches);
    }
    let batch = batches[batches.length - 1];
    if (!batch || batch.keys.has(key) || batch.writes.length >= this.maxWrites) {
      batch = { scope, keys: new Set(), writes: [] };
      batches.push(batch);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(this.flushBound);
    }
    batch.keys.add(key);
    const b = batch;
    return new Promise<R>((resolve, reject) => {
      b.writes.push({ key, write, resolve, reject });
    });
  }

  private flush(): void {
    const all = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    for (const batches of all.values()) for (const batch of batches) this.send(batch);
  }

  private send(batch: Batch<S, W, R>): void {
    let loading: Promise<R[]>;
    try {
      loading = this.load(batch.scope, batch.writes);
    } catch (err) {
      loading = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    loading.then(
      (results) => {
        batch.writes.forEach((w, i) => {
          if (i < results.length) w.resolve(results[i]!);
          else w.reject(new Error(`a write batch of ${batch.writes.length} answered ${results.length} results`));
        });
      },
      (err: unknown) => {
        for (const w of batch.writes) w.reject(err);
      },
    );
  }
}
