import { isRecord } from './path.ts';
import { REASONS } from './reasons.ts';
import { duplicates } from './rules/duplicates.ts';
import { RECORD_TTL_LONGER, REDIS_EXACTLY_ONE, SYNCABLES_UNIQUE, syncPeriods } from './rules/state-sync-rules.ts';
import type { ValidationError } from './types.ts';

/**
 * Cross-field StateSync rules; positivity of syncPeriod/recordTTL and keyPrefix are field rules.
 * The decisions are the rules' in rules/state-sync-rules.ts (the CRD carries their CEL twins).
 */
export function checkStateSync(ss: Record<string, unknown>): ValidationError[] {
  const spec = isRecord(ss.spec) ? ss.spec : {};
  const errors: ValidationError[] = [];

  if (!RECORD_TTL_LONGER.holds(spec)) {
    const { period, ttl } = syncPeriods(spec)!;
    errors.push({
      path: 'spec.recordTTL',
      reason: 'statesync_record_ttl_short',
      message: `recordTTL ${ttl} ms is not longer than syncPeriod ${period} ms: ${REASONS.statesync_record_ttl_short}`,
    });
  }

  if (isRecord(spec.redis) && !REDIS_EXACTLY_ONE.holds(spec.redis)) {
    errors.push({ path: 'spec.redis', reason: 'statesync_redis', message: REASONS.statesync_redis });
  }

  if (Array.isArray(spec.syncables) && !SYNCABLES_UNIQUE.holds(spec.syncables)) {
    for (const { index } of duplicates(spec.syncables)) {
      errors.push({ path: `spec.syncables[${index}]`, reason: 'statesync_syncable_duplicate', message: REASONS.statesync_syncable_duplicate });
    }
  }
  return errors;
}
