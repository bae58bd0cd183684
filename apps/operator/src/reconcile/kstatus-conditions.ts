import type { Condition } from '@orrery/spec';
import { setCondition } from './conditions.ts';

/**
 * kstatus's standard conditions (sigs.k8s.io/cli-utils/pkg/kstatus: what Flux, kpt and `kubectl
 * wait`-style tools read). kstatus judges a custom resource by observedGeneration, then
 * Reconciling=True → InProgress and Stalled=True → Failed, and only then by Ready; without them a
 * Ready=False failure reads InProgress forever and a kind without Ready reads Current mid-change.
 */
export const RECONCILING = 'Reconciling';
export const STALLED = 'Stalled';

export type Progress =
  | { state: 'done' }
  /** The operator is still working toward the spec (rollout, scaling, first sync). */
  | { state: 'reconciling'; reason: string; message: string }
  /** A failure the operator cannot get past without a change (to the spec or something it names). */
  | { state: 'stalled'; reason: string; message: string };

/**
 * Sets Reconciling or Stalled (never both) and removes the other; a settled object carries
 * neither. "Abnormal-true" as kstatus recommends: present only while true, so `kubectl get -o yaml`
 * of a healthy object is not cluttered with two False conditions.
 */
export function withProgress(conditions: readonly Condition[] | undefined, progress: Progress, now: Date): Condition[] {
  const keep = progress.state === 'reconciling' ? RECONCILING : progress.state === 'stalled' ? STALLED : undefined;
  const list = (conditions ?? []).filter((c) => (c.type !== RECONCILING && c.type !== STALLED) || c.type === keep);
  if (progress.state === 'done') return list;
  return setCondition(list, { type: keep!, status: 'True', reason: progress.reason, message: progress.message }, now);
}

/**
 * For kinds whose Ready=False only ever means a terminal failure (Revision: unsupported, missing
 * secret, crashing workers): Ready=True → done, Ready=False → stalled, otherwise reconciling.
 */
export function progressOfReady(conditions: readonly Condition[] | undefined): Progress {
  const ready = conditions?.find((c) => c.type === 'Ready');
  if (ready?.status === 'True') return { state: 'done' };
  if (ready?.status === 'False') return { state: 'stalled', reason: ready.reason || 'NotReady', message: ready.message ?? '' };
  return { state: 'reconciling', reason: ready?.reason || 'Pending', message: ready?.message || 'waiting for the first status' };
}

/** `withProgress(conditions, progressOfReady(conditions), now)`: call after the last change to Ready. */
export function withReadyProgress(conditions: readonly Condition[] | undefined, now: Date): Condition[] {
  return withProgress(conditions, progressOfReady(conditions), now);
}
