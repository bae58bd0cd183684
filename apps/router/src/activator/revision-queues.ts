/**
 * The activator queues of all revisions, by revision key: a revision's queue is made for its first
 * waiter and drained when one of its slots frees, an endpoint appears, or the activator leaves its
 * path. Kept apart from the data plane so the endpoint sources and the stats loop can drain it and
 * /metrics can read its depths without holding the data plane.
 */
import { WaitingQueue, type Waiter } from './waiting-queue.ts';

/** A waiting request: takes a slot now if one is free. */
export interface AdmissionWaiter extends Waiter {
  tryAdmit(): boolean;
}

/** One shared grant callback: no closure per drain. */
function grant(w: AdmissionWaiter): boolean {
  return w.tryAdmit();
}

export class RevisionQueues {
  private readonly byRevision = new Map<string, WaitingQueue<AdmissionWaiter>>();

  /** `maxDepth`: per-revision bound (503 queue_full beyond it). */
  constructor(private readonly maxDepth: number) {}

  /** The revision's queue, if a request ever waited for it (hot path: one Map lookup). */
  get(revKey: string): WaitingQueue<AdmissionWaiter> | undefined {
    return this.byRevision.get(revKey);
  }

  /** The revision's queue, made on first use. */
  of(revKey: string): WaitingQueue<AdmissionWaiter> {
    let q = this.byRevision.get(revKey);
    if (!q) this.byRevision.set(revKey, (q = new WaitingQueue<AdmissionWaiter>(this.maxDepth)));
    return q;
  }

  /** Offers free slots to the revision's waiting requests, in order. */
  drain(revKey: string): void {
    const q = this.byRevision.get(revKey);
    if (!q || q.size === 0) return;
    q.drain(grant);
  }

  drainAll(): void {
    for (const key of this.byRevision.keys()) this.drain(key);
  }

  /** The queues with someone waiting. */
  *withWaiters(): Iterable<WaitingQueue<AdmissionWaiter>> {
    for (const q of this.byRevision.values()) if (q.size > 0) yield q;
  }

  /** Waiting requests per revision key (for /metrics). */
  *depths(): Iterable<[revKey: string, depth: number]> {
    for (const [key, q] of this.byRevision) yield [key, q.size];
  }
}
