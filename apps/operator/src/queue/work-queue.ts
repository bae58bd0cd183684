import { backoffDelay } from '@orrery/spec';
import { processTracer, type Tracer } from '@orrery/tracing';
import { ReconcileSpan } from './reconcile-span.ts';

/**
 * A keyed work queue in the manner of client-go's: a key is processed by one worker at a time,
 * adding a key that is already waiting is a no-op, adding one that is being processed runs it
 * once more afterwards (so no change is lost), and failures retry with per-key exponential
 * backoff. Reconcilers are level-triggered, so coalescing keys is always safe.
 */
export interface WorkQueueOptions {
  concurrency?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  onError?: (key: string, err: unknown, attempt: number) => void;
  /**
   * Told how each run of the handler ended and how long it took: the queue is the one place that
   * sees every reconcile of its kind and its outcome (metrics hook here, not in each reconciler).
   */
  onProcessed?: (key: string, outcome: 'success' | 'error', seconds: number) => void;
  /** The kind this queue reconciles: with it, each run is a span `reconcile <kind>` (reconcile-span.ts). */
  kind?: string;
  /** Where those spans go; default the process' tracer (a no-op one while tracing is off). */
  tracer?: Tracer;
  /**
   * Collect keys but run nothing until release(): a controller's queues wait until every
   * informer it reads has listed once (client-go's WaitForCacheSync before the workers start),
   * or a reconcile would judge from a half-filled cache and write what it saw.
   */
  held?: boolean;
}

export class WorkQueue {
  private readonly waiting: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private active = 0;
  private stopped = false;
  private held: boolean;
  private idleWaiters: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(
    private readonly handler: (key: string) => Promise<void>,
    private readonly opts: WorkQueueOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 2;
    this.baseDelayMs = opts.baseDelayMs ?? 100;
    this.maxDelayMs = opts.maxDelayMs ?? 30_000;
    this.held = opts.held ?? false;
  }

  /** Starts running the keys collected while held (and every key added from now on). */
  release(): void {
    this.held = false;
    this.pump();
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.waiting.push(key);
    this.pump();
  }

  /** Adds the key after a delay (a later call with a shorter delay wins). */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing);
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    t.unref();
    this.timers.set(key, t);
  }

  /** Delay before the next retry of a key that failed `attempt` times (the first failure waits baseDelayMs). */
  backoffMs(attempt: number): number {
    return backoffDelay(attempt - 1, { initialMs: this.baseDelayMs, maxMs: this.maxDelayMs });
  }

  get length(): number {
    return this.waiting.length;
  }

  /** Resolves when nothing is waiting or running (timers excluded). */
  idle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.waiting.length = 0;
    this.queued.clear();
  }

  private pump(): void {
    if (this.held) return;
    while (!this.stopped && this.active < this.concurrency && this.waiting.length > 0) {
      const key = this.waiting.shift()!;
      this.queued.delete(key);
      this.processing.add(key);
      this.active++;
      void this.run(key);
    }
    if (this.active === 0 && this.waiting.length === 0) {
      const w = this.idleWaiters;
      this.idleWaiters = [];
      for (const r of w) r();
    }
  }

  private async run(key: string): Promise<void> {
    const started = performance.now();
    const kind = this.opts.kind;
    const span = kind === undefined ? undefined : new ReconcileSpan(this.opts.tracer ?? processTracer(), kind, key);
    try {
      await this.handler(key);
      this.failures.delete(key);
      this.opts.onProcessed?.(key, 'success', (performance.now() - started) / 1000);
      span?.end('success', this.dirty.has(key) ? 0 : undefined);
    } catch (err) {
      this.opts.onProcessed?.(key, 'error', (performance.now() - started) / 1000);
      const attempt = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, attempt);
      this.opts.onError?.(key, err, attempt);
      const delay = this.backoffMs(attempt);
      span?.end('error', delay, err);
      this.addAfter(key, delay);
    } finally {
      this.processing.delete(key);
      this.active--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
