/**
 * Point reads of one keyspace that arrive in the same event-loop iteration leave as one
 * statement (`key = any($keys)`) instead of one statement each.
 *
 * Why: a statement's fixed cost — the client's encode/decode, one loopback write and read, the
 * backend's bind/execute/sync — was most of a GET's cost (profile of statesvc at 32 connections:
 * 40 % of its busy time in socket writes), while one more key in the same index scan costs the
 * backend little. Under load many reads are parsed per poll phase, so they share a statement;
 * alone, a read waits only for the end of the current poll phase (`schedule` is setImmediate).
 *
 * Still linearizable: the statement starts after every read of its batch arrived, so each read
 * sees every write acknowledged before that read began.
 *
 * Pure: the statement (`load`) and the scheduler are injected.
 */
export interface ReadBatcherOptions<S, V> {
  /** The values of `keys` in `scope`, in the order of `keys` (null: no live value). */
  load: (scope: S, keys: string[]) => Promise<Array<V | null>>;
  /** Runs the flush after the reads of this event-loop iteration arrived. */
  schedule?: (flush: () => void) => void;
  /** Keys per statement at most; a larger batch is split (bounds the statement's size). */
  maxKeys?: number;
}

interface Waiter<V> {
  resolve: (v: V | null) => void;
  reject: (err: unknown) => void;
}

interface Batch<S, V> {
  scope: S;
  /** Waiters by key: the same key read twice in one batch is read once. */
  waiters: Map<string, Array<Waiter<V>>>;
}

export const DEFAULT_READ_BATCH_KEYS = 64;

export class ReadBatcher<S, V> {
  private pending = new Map<string, Batch<S, V>>();
  private scheduled = false;
  private readonly load: ReadBatcherOptions<S, V>['load'];
  private readonly schedule: (flush: () => void) => void;
  private readonly maxKeys: number;
  private readonly flushBound = () => this.flush();

  constructor(opts: ReadBatcherOptions<S, V>) {
    this.load = opts.load;
    this.schedule = opts.schedule ?? setImmediate;
    this.maxKeys = opts.maxKeys ?? DEFAULT_READ_BATCH_KEYS;
    if (!(this.maxKeys >= 1)) throw new Error('a read batch needs room for at least one key');
  }

  /** Reads `key` of `scope`; `scopeId` identifies the scope (reads with the same id may share a statement). */
  get(scopeId: string, scope: S, key: string): Promise<V | null> {
    let batch = this.pending.get(scopeId);
    if (!batch) {
      batch = { scope, waiters: new Map() };
      this.pending.set(scopeId, batch);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(this.flushBound);
    }
    return new Promise<V | null>((resolve, reject) => {
      const list = batch.waiters.get(key);
      if (list) list.push({ resolve, reject });
      else batch.waiters.set(key, [{ resolve, reject }]);
    });
  }

  /** Sends one statement per scope (per `maxKeys` keys) for everything queued so far. */
  private flush(): void {
    const batches = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    for (const batch of batches.values()) {
      const keys = [...batch.waiters.keys()];
      for (let i = 0; i < keys.length; i += this.maxKeys) this.send(batch, keys.slice(i, i + this.maxKeys));
    }
  }

  private send(batch: Batch<S, V>, keys: string[]): void {
    let loading: Promise<Array<V | null>>;
    try {
      loading = this.load(batch.scope, keys);
    } catch (err) {
      loading = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    loading.then(
      (values) => {
        for (let i = 0; i < keys.length; i++) for (const w of batch.waiters.get(keys[i]!)!) w.resolve(values[i] ?? null);
      },
      (err: unknown) => {
        for (const key of keys) for (const w of batch.waiters.get(key)!) w.reject(err);
      },
    );
  }
}
