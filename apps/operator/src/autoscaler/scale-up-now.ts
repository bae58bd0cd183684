import type { OrreryFunction, Revision } from '@orrery/spec';
import type { LocalBackend, StateCredentials } from '../backends/local/local-backend.ts';
import type { Autoscaler } from './autoscaler.ts';

export interface ScaleUpNowOptions {
  autoscaler: Pick<Autoscaler, 'decisionOf'>;
  backend: Pick<LocalBackend, 'observe' | 'scale'>;
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
    const i = key.indexOf('/');
    const [namespace, name] = [key.slice(0, i), key.slice(i + 1)];
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
