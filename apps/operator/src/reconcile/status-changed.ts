import { isDeepStrictEqual } from 'node:util';

/**
 * Whether a computed status differs from the stored one, compared as stored (JSON, so
 * `undefined` members vanish) and without condition transition times: an unchanged state must
 * write nothing, or every status write would trigger another reconcile.
 */
export function statusChanged(next: unknown, stored: unknown): boolean {
  return !isDeepStrictEqual(withoutTimes(next), withoutTimes(stored));
}

function withoutTimes(status: unknown): unknown {
  if (!status || typeof status !== 'object') return status ?? null;
  const s = JSON.parse(JSON.stringify(status)) as { conditions?: Array<Record<string, unknown>> };
  return { ...s, conditions: s.conditions?.map(({ lastTransitionTime: _t, ...c }) => c) };
}
