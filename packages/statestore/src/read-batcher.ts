/**
 * Point reads of one keyspace that arrive in the same event-loop iteration leave as one
 * statement (`key = any($keys)`) instead of one statement each — once enough statements are in
 * flight (`aloneBelow`); below that a read leaves at once on its own.
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
  /**
   * While fewer statements than this are in flight, a read leaves at once as a statement of its
   * own instead of waiting for the iteration's batch (0: always batch). See `aloneBelow`.
   */
  aloneBelow?: number;
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

/**
 * Batching pays only under pressure. With few reads in flight, holding each one for the
 * iteration's batch put every concurrent reader into one statement and so into lock-step: at 8
 * connections one statement was in flight instead of 8, and statesvc served 7.1 k GET/s batched
 * against 12.7 k/s unbatched (2026-12-04, same run); at 128 connections batching won, 21.2 k
 * against 16.8 k/s. So reads go alone while fewer than this many statements are in flight, and
 * only the reads beyond that wait to share one (as a group commit does). A/B of the threshold
 * (bench/statesvc, GET/s @8 / @32 / @128): 0 (always batch) 7.4 k / 13.8 k / 21.8 k, 4 8.8 k /
 * 14.2 k / 21.0 k, 8 11.4 k / 14.5 k / 20.3 k, 16 11.2 k / 13.6 k / 19.1 k.
 */
export const DEFAULT_READ_ALONE_BELOW = 8;

export class ReadBatcher<S, V> {
  private pending = new Map<string, Batch<S, V>>();
  private scheduled = false;
  private readonly load: ReadBatcherOptions<S, V>['load'];
  private readonly schedule: (flush: () => void) => void;
  private readonly maxKeys: number;
  private readonly aloneBelow: number;
  /** Statements sent and not yet answered. */
  private inflight = 0;
  private readonly flushBound = () => this.flush();

  constructor(opts: ReadBatcherOptions<S, V>) {
    this.load = opts.load;
    this.schedule = opts.schedule ?? setImmediate;
    this.maxKeys = opts.maxKeys ?? DEFAULT_READ_BATCH_KEYS;
    this.aloneBelow = opts.aloneBelow ?? DEFAULT_READ_ALONE_BELOW;
    if (!(this.maxKeys >= 1)) throw new Error('a read batch needs room for at least one key');
    if (!(this.aloneBelow >= 0)) throw new Error('aloneBelow must be 0 or more');
  }

  /** Statements in flight (tests read it). */
  get statementsInFlight(): number {
    return this.inflight;
  }

  /** Reads `key` of `scope`; `scopeId` identifies the scope (reads with the same id may share a statement). */
  get(scopeId: string, scope: S, key: string): Promise<V | null> {
    if (this.inflight < this.aloneBelow) {
      return new Promise<V | null>((resolve, reject) => this.send({ scope, waiters: new Map([[key, [{ resolve, reject }]]]) }, [key]));
    }
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
    this.inflight++;
    loading.then(
      (values) => {
        this.inflight--;
        for (let i = 0; i < keys.length; i++) for (const w of batch.waiters.get(keys[i]!)!) w.resolve(values[i] ?? null);
      },
      (err: unknown) => {
        this.inflight--;
        for (const key of keys) for (const w of batch.waiters.get(key)!) w.reject(err);
      },
    );
  }
}
