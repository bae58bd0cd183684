import { StoreError, type StoreErrorCode } from '@orrery/store';
import type { ValidationError } from '@orrery/spec';
import { describeConflicts, fieldConflicts } from './field-conflicts.ts';
import { statusCode } from './kube-client.ts';

interface KubeStatus {
  message?: string;
  reason?: string;
  details?: { causes?: Array<{ field?: string; message?: string }> };
}

/**
 * A Kubernetes API failure as the StoreError the local store would raise for the same situation,
 * so the HTTP store API and the admin API answer alike on both backends. `precondition` (the
 * resourceVersion the caller required) turns "object gone" into a conflict, as locally.
 */
export function storeErrorFrom(err: unknown, what: string, o: { precondition?: string } = {}): StoreError {
  if (err instanceof StoreError) return err;
  // ApiException carries `code`; client-node's Watch rejects with an Error carrying `statusCode`.
  const code = statusCode(err);
  const status = kubeStatus(err);
  const message = status?.message ?? (err instanceof Error ? err.message : String(err));
  const byCode = (c: StoreErrorCode, text: string, details?: ValidationError[]) => new StoreError(c, text, details);
  switch (code) {
    case 404:
      return o.precondition ? byCode('conflict', `${what} is gone (wanted resourceVersion ${o.precondition})`) : byCode('not_found', `${what} not found`);
    case 409: {
      const owned = fieldConflicts(err);
      if (owned.length) {
        const details = owned.map((c) => ({ path: c.field.replace(/^\./, ''), reason: 'field_manager_conflict', message: `owned by field manager "${c.manager}"` }) satisfies ValidationError);
        return byCode('conflict', `${what}: another field manager owns ${describeConflicts(owned)}; change it there, or apply with force to take it over (orrery apply --force-conflicts)`, details);
      }
      return byCode('conflict', `${what} was modified (${message}): read it again and retry`);
    }
    case 410:
      return byCode('expired', `${what}: ${message}`);
    case 400:
    case 422: {
      const causes = status?.details?.causes ?? [];
      const details = causes.map((c) => ({ path: (c.field ?? '').replace(/^\./, ''), reason: 'invalid', message: c.message ?? message }) satisfies ValidationError);
      // The real API server refuses a resourceVersion on create: a stale precondition, not bad input.
      if (o.precondition && /resourceVersion should not be set/i.test(message)) return byCode('conflict', `${what} does not exist (wanted resourceVersion ${o.precondition})`);
      return byCode('invalid', `invalid ${what}: ${message}`, details.length ? details : undefined);
    }
    case 403:
      // An admission webhook's denial is the resource's fault; RBAC refusals are the platform's.
      if (/admission webhook/i.test(message)) return byCode('invalid', `invalid ${what}: ${message}`);
      return byCode('unavailable', `the operator may not access ${what} (check its RBAC): ${message}`);
    default:
      return byCode('unavailable', `Kubernetes API unavailable for ${what}: ${message}`);
  }
}

function kubeStatus(err: unknown): KubeStatus | undefined {
  const body = (err as { body?: unknown } | undefined)?.body;
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as KubeStatus;
    } catch {
      return undefined;
    }
  }
  return typeof body === 'object' && body !== null ? body : undefined;
}
