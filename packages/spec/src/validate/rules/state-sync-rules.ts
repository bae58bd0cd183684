import { parseSignedDurationMs } from '../../duration.ts';
import { duplicates } from './duplicates.ts';
import { celDuration, DURATION_FORMAT, DURATION_PATTERN } from './duration-rules.ts';
import { isRecord, type ObjectRule } from './object-rule.ts';

/** Most syncables a StateSync may list, and the longest name (CEL's cost estimate needs both). */
export const MAX_SYNCABLES = 32;
export const MAX_SYNCABLE_NAME = 128;
/** The defaults of syncPeriod and recordTTL (the API server fills them in; validate() assumes them). */
export const DEFAULT_SYNC_PERIOD = '10s';
export const DEFAULT_RECORD_TTL = '2m';

const fieldOr = (spec: Record<string, unknown>, key: string, fallback: string) => (typeof spec[key] === 'string' ? spec[key] : fallback);

/** The two periods in ms, or undefined when one is unreadable or not positive (their own rules report that). */
export function syncPeriods(spec: Record<string, unknown>): { period: number; ttl: number } | undefined {
  const p = fieldOr(spec, 'syncPeriod', DEFAULT_SYNC_PERIOD);
  const t = fieldOr(spec, 'recordTTL', DEFAULT_RECORD_TTL);
  if (!DURATION_PATTERN.test(p) || !DURATION_PATTERN.test(t)) return undefined;
  const period = parseSignedDurationMs(p);
  const ttl = parseSignedDurationMs(t);
  return period > 0 && ttl > 0 ? { period, ttl } : undefined;
}

const celField = (key: string, fallback: string) => `(has(self.${key}) ? self.${key} : '${fallback}')`;
const celFormatOf = (expr: string) => DURATION_FORMAT.cel.replace('self.', `${expr}.`);

/** On StateSync.spec (AIBrix): records live longer than a sync cycle, or they expire between two pushes. */
export const RECORD_TTL_LONGER: ObjectRule = (() => {
  // No cel.bind in the API server's CRD validation: each value is spelled out where it is used.
  const p = celField('syncPeriod', DEFAULT_SYNC_PERIOD);
  const t = celField('recordTTL', DEFAULT_RECORD_TTL);
  const zero = "duration('0s')";
  return {
    reason: 'statesync_record_ttl_short',
    cel:
      `!${celFormatOf(p)} || !${celFormatOf(t)} || ${celDuration(p)} <= ${zero} || ${celDuration(t)} <= ${zero} || ` +
      `${celDuration(t)} > ${celDuration(p)}`,
    fieldPath: '.recordTTL',
    holds: (spec) => {
      const periods = isRecord(spec) ? syncPeriods(spec) : undefined;
      return periods === undefined || periods.ttl > periods.period;
    },
  };
})();

/** On StateSync.spec.redis: exactly one of url and urlSecretRef. */
export const REDIS_EXACTLY_ONE: ObjectRule = {
  reason: 'statesync_redis',
  cel: '(has(self.url) ? 1 : 0) + (has(self.urlSecretRef) ? 1 : 0) == 1',
  holds: (redis) => !isRecord(redis) || (redis.url !== undefined ? 1 : 0) + (redis.urlSecretRef !== undefined ? 1 : 0) === 1,
};

/** On StateSync.spec.syncables: each listed once. */
export const SYNCABLES_UNIQUE: ObjectRule = {
  reason: 'statesync_syncable_duplicate',
  cel: 'self.all(s, self.exists_one(t, t == s))',
  holds: (list) => !Array.isArray(list) || duplicates(list).length === 0,
};
