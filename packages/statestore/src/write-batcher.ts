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
 * batch, which leaves after the first. The two writes were concurrent requests, so either order
 * is a valid one.
 *
 * Group commit: while a keyspace has `maxInFlight` batches in flight (default 2), its new writes
 * wait in the next batch and leave together when one is answered. They would have waited anyway
 * — for the head row, inside Postgres — but each as its own small transaction with its own WAL
 * flush; waiting here, they share one.
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
  /** Batches of one scope in flight at most; the next leaves when one is answered. */
  maxInFlight?: number;
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

/**
 * Two batches of a keyspace in flight: one committing, the next already waiting inside Postgres
 * for the head row (a keyspace's writes commit one after the other in any case), so the row is
 * taken again the moment it is free instead of one round trip later; everything after waits
 * here and shares a transaction. Unbounded, every event-loop turn sent its own small batch and
 * paid its own WAL flush. A/B on bench/statesvc, PUT throughput against the raw upsert at 8 / 32
 * / 128 connections (2026-12-05, 6–8 runs each, docs/performance.md "Group commit"): unbounded
 * 0.43–0.50 / 0.58–0.64 / 0.70–0.81, one in flight 0.45–0.52 / 0.71–0.82 / 0.91–1.03, two
 * 0.49–0.55 / 0.77–0.85 / 0.94–1.05.
 */
export const DEFAULT_WRITE_BATCHES_IN_FLIGHT = 2;

export class WriteBatcher<S, W, R> {
  /** Per scope id, the batches not sent yet, in order; only the last one takes new writes. */
  private pending = new Map<string, Array<Batch<S, W, R>>>();
  /** Per scope id, batches sent and not answered yet (absent: none). */
  private readonly inFlight = new Map<string, number>();
  private scheduled = false;
  private readonly load: WriteBatcherOptions<S, W, R>['load'];
  private readonly schedule: (flush: () => void) => void;
  private readonly maxWrites: number;
  private readonly maxInFlight: number;
  private readonly flushBound = () => this.flush();

  constructor(opts: WriteBatcherOptions<S, W, R>) {
    this.load = opts.load;
    this.schedule = opts.schedule ?? setImmediate;
    this.maxWrites = opts.maxWrites ?? DEFAULT_WRITE_BATCH_SIZE;
    this.maxInFlight = opts.maxInFlight ?? DEFAULT_WRITE_BATCHES_IN_FLIGHT;
    if (!(this.maxWrites >= 1)) throw new Error('a write batch needs room for at least one write');
    if (!(this.maxInFlight >= 1)) throw new Error('a write batcher needs at least one batch in flight');
  }

  /** Batches of `scopeId` sent and not answered yet (tests read it). */
  batchesInFlight(scopeId: string): number {
    return this.inFlight.get(scopeId) ?? 0;
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
    this.scheduled = false;
    for (const scopeId of [...this.pending.keys()]) this.sendReady(scopeId);
  }

  /** Sends the scope's waiting batches, in order, while it has room in flight. */
  private sendReady(scopeId: string): void {
    const batches = this.pending.get(scopeId);
    if (!batches) return;
    while (batches.length > 0 && this.batchesInFlight(scopeId) < this.maxInFlight) this.send(scopeId, batches.shift()!);
    if (batches.length === 0) this.pending.delete(scopeId);
  }

  private send(scopeId: string, batch: Batch<S, W, R>): void {
    let loading: Promise<R[]>;
    try {
      loading = this.load(batch.scope, batch.writes);
    } catch (err) {
      loading = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    this.inFlight.set(scopeId, this.batchesInFlight(scopeId) + 1);
    const answered = (): void => {
      const left = this.batchesInFlight(scopeId) - 1;
      if (left > 0) this.inFlight.set(scopeId, left);
      else this.inFlight.delete(scopeId);
      this.sendReady(scopeId);
    };
    loading.then(
      (results) => {
        batch.writes.forEach((w, i) => {
          if (i < results.length) w.resolve(results[i]!);
          else w.reject(new Error(`a write batch of ${batch.writes.length} answered ${results.length} results`));
        });
        answered();
      },
      (err: unknown) => {
        for (const w of batch.writes) w.reject(err);
        answered();
      },
    );
  }
}
