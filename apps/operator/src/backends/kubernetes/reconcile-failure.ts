import { ApiException } from '@kubernetes/client-node';
import type { Condition } from '@orrery/spec';
import { setCondition } from '../../reconcile/conditions.ts';
import { apiErrorText } from './api-error-text.ts';

/** The condition a failed reconcile leaves on the object, so `kubectl get -o yaml` tells why. */
export const RECONCILED = 'Reconciled';

/**
 * Why a reconcile failed, in words for a person: the API server's own message (a 403 names the
 * verb, resource and ServiceAccount), with what to do about an RBAC refusal.
 */
export function reconcileFailure(err: unknown): { reason: string; message: string } {
  const code = err instanceof ApiException ? err.code : undefined;
  const message = apiErrorText(err).replace(/^\d{3}: /, '').slice(0, 1000);
  if (code === 403) {
    return { reason: 'Forbidden', message: `${message} — the operator's ServiceAccount lacks this permission: grant it in its ClusterRole (the chart's templates/rbac.yaml)` };
  }
  if (code === 422) return { reason: 'Invalid', message };
  if (code === 409) return { reason: 'Conflict', message };
  return { reason: code ? `ApiError${code}` : 'ReconcileFailed', message };
}

/** Conditions with the failure recorded (Reconciled=False). */
export function withFailure(conditions: readonly Condition[] | undefined, err: unknown, now: Date): Condition[] {
  return setCondition(conditions, { type: RECONCILED, status: 'False', ...reconcileFailure(err) }, now);
}

/**
 * After a successful reconcile: a recorded failure is marked resolved; nothing is added otherwise.
 * `recorded` is the reason this process wrote last: the informer's copy may not show that write
 * yet, and a status applied without the condition would drop it instead of resolving it.
 */
export function withSuccess(conditions: readonly Condition[] | undefined, now: Date, recorded?: string): Condition[] | undefined {
  const failed = conditions?.find((c) => c.type === RECONCILED && c.status !== 'True')?.reason ?? (conditions?.some((c) => c.type === RECONCILED && c.status === 'True') ? undefined : recorded);
  if (!failed) return conditions ? [...conditions] : conditions;
  return setCondition(conditions, { type: RECONCILED, status: 'True', reason: 'Reconciled', message: `recovered from ${failed}` }, now);
}
