import type { OrreryFunction, Revision, StateCredentials } from '@orrery/spec';
import { splitKey } from '../queue/object-key.ts';
import type { RevisionWorkers } from '../reconcile/revision-workers.ts';
import type { Autoscaler } from './autoscaler.ts';

export interface ScaleUpNowOptions {
  autoscaler: Pick<Autoscaler, 'decisionOf'>;
  /** The backend that runs deploy revisions' workers (local: backends/local/local-backend.ts). */
  backend: {
    observe(namespace: string, name: string): Pick<RevisionWorkers, 'desired'>;
    scale(rev: Revision, desired: number, credentials?: StateCredentials): Promise<void>;
  };
  /** In-memory reads (the executor view): no database query on the wake-up path. */
  revision: (namespace: string, name: string) => Promise<Revision | undefined>;
  fn: (namespace: string, name: string) => Promise<OrreryFunction | undefined>;
  credentials: (fn: OrreryFunction) => StateCredentials | undefined;
  log?: (msg: string) => void;
}

/**
 * The KPA raised a deploy revision's desired scale (a poke woke it from zero, or load): start
 * the missing workers now rather than when the revision's turn in the reconcile queue comes —
 * with many revisions that queue is busy with resyncs, and every request of a woken revision
 * waits for this worker. Only ever scales up; the reconcile that follows converges the rest
 * (status, scale-down with its unpublish delay) and, reading the same decision, agrees.
 */
export function createScaleUpNow(o: ScaleUpNowOptions): (key: string) => Promise<void> {
  return async (key) => {
    const desired = o.autoscaler.decisionOf(key)?.desired ?? 0;
    const [namespace, name] = splitKey(key);
    if (desired <= o.backend.observe(namespace, name).desired) return;
    const rev = await o.revision(namespace, name);
    if (!rev || rev.spec.template.executor !== 'deploy') return;
    const fn = await o.fn(namespace, rev.spec.function);
    // Read again after the awaits: a tick or a reconcile may have moved the decision meanwhile.
    const now = o.autoscaler.decisionOf(key)?.desired ?? 0;
    if (now <= o.backend.observe(namespace, name).desired) return;
    await o.backend.scale(rev, now, fn ? o.credentials(fn) : undefined);
  };
}
