/**
 * The queue-proxy's concurrency breaker: at most `limit` requests run the handler at once,
 * up to `queueDepth` more wait in FIFO order, anything beyond is refused (queue_full).
 * `limit` 0 means unlimited (nothing ever waits). As in Knative, the queue holds
 * 10 × containerConcurrency by default, in addition to the running slots.
 */

export type Release = () => void;

export class BreakerError extends Error {
  readonly code: 'queue_full' | 'cancelled';
  constructor(code: 'queue_full' | 'cancelled', message: string) {
    super(message);
    this.name = 'BreakerError';
    this.code = code;
  }
}

interface Waiter {
  grant: (release: Release) => void;
  refuse: (err: Error) => void;
}

export interface BreakerOptions {
  /** Hard limit of concurrent holders; 0 = unlimited. */
  limit: number;
  /** Waiting room; default 10 × limit. */
  queueDepth?: number;
}

export class ConcurrencyBreaker {
  readonly limit: number;
  readonly queueDepth: number;
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(opts: BreakerOptions) {
    if (!Number.isInteger(opts.limit) || opts.limit < 0) throw new RangeError(`breaker limit must be an integer ≥ 0, got ${opts.limit}`);
    this.limit = opts.limit;
    this.queueDepth = opts.queueDepth ?? 10 * opts.limit;
  }

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves with a release function once a slot is held. Rejects with
   * BreakerError('queue_full') when the queue is full, or ('cancelled') when `signal`
   * aborts while waiting. The release function is idempotent.
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(new BreakerError('cancelled', 'request cancelled before admission'));
    if (this.limit === 0 || this.running < this.limit) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.queueDepth) {
      return Promise.reject(
        new BreakerError('queue_full', `worker queue is full (${this.limit} running, ${this.queueDepth} waiting); retry later or scale out`),
      );
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new BreakerError('cancelled', 'request cancelled while queued'));
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        refuse: reject,
      };
      this.waiting.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      // Hand the slot straight to the oldest waiter so late arrivals cannot barge in.
      const next = this.waiting.shift();
      if (next) next.grant(this.releaser());
      else this.running--;
    };
  }
}
