/**
 * Group commit for the registrations' puts. Each register grants its own lease (one instance,
 * one lease: expiry and deregister stay per instance), but the puts of registers that reach this
 * point while earlier puts are still in flight leave together, as one etcd txn: one gRPC call,
 * one raft entry and one fsync for the lot instead of one each. A put never waits longer than
 * it would have waited behind the txns ahead of it; alone, it leaves at once as a plain put.
 *
 * Every put of a txn is applied at the same revision, so several instance changes can share one
 * revision — watch streams mark their resume points for that (watch/event-positions.ts).
 */

export interface InstancePut {
  key: Buffer;
  value: Buffer;
  /** The lease (decimal ID) the record is attached to. */
  lease: string;
}

export interface PutOutcome {
  revision: number;
  /** The lease the key's previous record was attached to, if there was one. */
  prevLease: string | undefined;
}

/** Sends puts to etcd: one alone, or several in one txn (outcomes in the same order). */
export interface PutSender {
  one(put: InstancePut): Promise<PutOutcome>;
  many(puts: readonly InstancePut[]): Promise<PutOutcome[]>;
}

export interface BatchLimits {
  /** Puts per txn; etcd refuses a txn above `--max-txn-ops` (128 by default). */
  maxPuts: number;
  /** Key + value bytes per txn; etcd refuses a request above `--max-request-bytes` (1.5 MiB). */
  maxBytes: number;
}

export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxPuts: 64, maxBytes: 512 * 1024 };
/** Txns in flight at once: one being applied, the next already on its way; the rest gather. */
export const MAX_TXNS_IN_FLIGHT = 2;

/**
 * How many puts from the front of `queue` form the next txn: at least one, within the limits,
 * and never the same key twice (etcd refuses a txn that writes a key twice; the later put goes
 * in a later txn — two registrations of one instance in flight together are ordered by etcd,
 * as they were without batching).
 */
export function nextBatchSize(queue: readonly InstancePut[], limits: BatchLimits = DEFAULT_BATCH_LIMITS): number {
  if (queue.length === 0) return 0;
  const seen = new Set<string>();
  let bytes = 0;
  let n = 0;
  for (const put of queue) {
    const size = put.key.length + put.value.length;
    const id = put.key.toString('latin1');
    if (n > 0 && (n >= limits.maxPuts || bytes + size > limits.maxBytes || seen.has(id))) break;
    seen.add(id);
    bytes += size;
    n++;
  }
  return n;
}

/**
 * etcd answered the txn with a refusal that proves nothing of it was applied — a lease that is
 * gone (revoked or expired between grant and put), a duplicate key, too many operations, a
 * request too large. Each put then goes again on its own, so only the one at fault fails.
 */
export function refusedWhole(err: unknown): boolean {
  const text = err instanceof Error ? err.message : String(err);
  return /lease not found|duplicate key given in txn request|too many operations in txn request|request is too large/i.test(text);
}

/** A put waiting for its txn: the put itself (so the queue is what nextBatchSize reads) and its answer. */
interface Waiting extends InstancePut {
  resolve: (out: PutOutcome) => void;
  reject: (err: unknown) => void;
}

export class PutBatcher {
  private queue: Waiting[] = [];
  private inFlight = 0;
  private flushScheduled = false;
  /** Txns sent with more than one put, and the puts they carried (metrics, tests). */
  batches = 0;
  batchedPuts = 0;

  constructor(
    private readonly sender: PutSender,
    private readonly limits: BatchLimits = DEFAULT_BATCH_LIMITS,
    private readonly maxInFlight = MAX_TXNS_IN_FLIGHT,
  ) {}

  put(put: InstancePut): Promise<PutOutcome> {
    return new Promise<PutOutcome>((resolve, reject) => {
      this.queue.push({ key: put.key, value: put.value, lease: put.lease, resolve, reject });
      // The end of this event-loop turn: every put whose lease grant was answered in the same
      // read from etcd has joined the queue by then.
      if (!this.flushScheduled && this.inFlight < this.maxInFlight) {
        this.flushScheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, nextBatchSize(this.queue, this.limits));
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.flush();
      });
    }
  };

  private async send(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch as [Waiting];
      await this.sender.one(only).then(only.resolve, only.reject);
      return;
    }
    this.batches++;
    this.batchedPuts += batch.length;
    let outcomes: PutOutcome[];
    try {
      outcomes = await this.sender.many(batch);
    } catch (err) {
      if (!refusedWhole(err)) {
        // Maybe applied, maybe not (a lost answer) or certainly not (never sent): each register
        // decides about its lease exactly as for a put of its own that failed this way.
        for (const w of batch) w.reject(err);
        return;
      }
      await Promise.all(batch.map((w) => this.sender.one(w).then(w.resolve, w.reject)));
      return;
    }
    batch.forEach((w, i) => {
      const out = outcomes[i];
      if (out) w.resolve(out);
      else w.reject(new Error(`etcd answered a txn of ${batch.length} puts with ${outcomes.length} responses`));
    });
  }
}
