import { ApiException } from '@kubernetes/client-node';
import type { OperatorEvent } from '../../events/event-recorder.ts';
import type { KubeObject } from './kube-client.ts';

/** One field another field manager owned when a non-forced apply was refused. */
export interface FieldConflict {
  field: string;
  manager: string;
}

/**
 * The fields and their owners from a server-side apply's 409 (causes of reason
 * FieldManagerConflict, message `conflict with "<manager>"[ using <apiVersion>]`); empty for
 * any other error, including an optimistic-concurrency 409.
 */
export function fieldConflicts(err: unknown): FieldConflict[] {
  if (!(err instanceof ApiException) || err.code !== 409) return [];
  let causes: Array<{ reason?: string; field?: string; message?: string }> = [];
  try {
    causes = (JSON.parse(String(err.body)) as { details?: { causes?: typeof causes } }).details?.causes ?? [];
  } catch {
    return [];
  }
  return causes
    .filter((c) => c.reason === 'FieldManagerConflict' && c.field)
    .map((c) => ({ field: c.field!, manager: /conflict with "([^"]+)"/.exec(c.message ?? '')?.[1] ?? 'another manager' }));
}

/** One line naming what was taken from whom. */
export function describeConflicts(conflicts: readonly FieldConflict[]): string {
  return conflicts.map((c) => `${c.field} (owned by "${c.manager}")`).join(', ');
}

/**
 * The Warning Event on the child whose fields the operator took back (recorded by the Events
 * recorder), so `kubectl describe` shows who changed what Orrery renders and that it did not stay.
 */
export function takeoverEvent(obj: KubeObject, conflicts: readonly FieldConflict[]): OperatorEvent {
  return {
    reason: 'FieldsTakenOver',
    message: `${obj.kind} ${obj.metadata.name} is rendered by Orrery: took back ${describeConflicts(conflicts)}. Change the Function or Environment instead.`,
  };
}
