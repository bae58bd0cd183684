import { parseSignedDurationMs } from '../duration.ts';
import { isRecord } from './path.ts';
import { REASONS } from './reasons.ts';
import type { ValidationError } from './types.ts';

/** Cross-field StateSync rules; positivity of syncPeriod/recordTTL and keyPrefix are field rules. */
export function checkStateSync(ss: Record<string, unknown>): ValidationError[] {
  const spec = isRecord(ss.spec) ? ss.spec : {};
  const errors: ValidationError[] = [];

  const period = parseSignedDurationMs(typeof spec.syncPeriod === 'string' ? spec.syncPeriod : '10s');
  const ttl = parseSignedDurationMs(typeof spec.recordTTL === 'string' ? spec.recordTTL : '2m');
  if (period > 0 && ttl > 0 && ttl <= period) {
    errors.push({
      path: 'spec.recordTTL',
      reason: 'statesync_record_ttl_short',
      message: `recordTTL ${ttl} ms is not longer than syncPeriod ${period} ms: ${REASONS.statesync_record_ttl_short}`,
    });
  }

  if (isRecord(spec.redis)) {
    const n = (spec.redis.url !== undefined ? 1 : 0) + (spec.redis.urlSecretRef !== undefined ? 1 : 0);
    if (n !== 1) errors.push({ path: 'spec.redis', reason: 'statesync_redis', message: REASONS.statesync_redis });
  }

  if (Array.isArray(spec.syncables)) {
    const seen = new Set<unknown>();
    spec.syncables.forEach((s, i) => {
      if (seen.has(s)) {
        errors.push({ path: `spec.syncables[${i}]`, reason: 'statesync_syncable_duplicate', message: REASONS.statesync_syncable_duplicate });
      }
      seen.add(s);
    });
  }
  return errors;
}
