import { describe, expect, it } from 'vitest';
import { isBackingOff, syncPeriodSeconds } from './backing-off.ts';

describe('isBackingOff', () => {
  it('the normal cadence (wait = period) is not a backoff; a longer wait is', () => {
    expect(isBackingOff({ backoffSeconds: 10 }, 10)).toBe(false);
    expect(isBackingOff({ backoffSeconds: 0 }, 10)).toBe(false);
    expect(isBackingOff({ backoffSeconds: 11 }, 10)).toBe(true);
  });
  it('any wait after an error is a backoff; an error with no wait is not', () => {
    expect(isBackingOff({ backoffSeconds: 2, lastError: 'ECONNREFUSED' }, 10)).toBe(true);
    expect(isBackingOff({ backoffSeconds: 0, lastError: 'once' }, 10)).toBe(false);
  });
  it('reads the period from spec.syncPeriod with the schema default', () => {
    expect(syncPeriodSeconds('30s')).toBe(30);
    expect(syncPeriodSeconds(undefined)).toBe(10);
    expect(syncPeriodSeconds('garbage')).toBe(10);
  });
});
