import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveSyncPeriod, SYNC_PERIOD_ENV } from './sync-period.ts';

const D = 10_000;

describe('resolveSyncPeriod (seed: the variable sets the default, an explicit period replaces it)', () => {
  it('nothing given: the built-in default', () => {
    expect(resolveSyncPeriod(undefined, undefined, D)).toEqual({ ms: D, source: 'default', rejected: [] });
    expect(resolveSyncPeriod(undefined, '', D)).toEqual({ ms: D, source: 'default', rejected: [] });
    expect(resolveSyncPeriod(undefined, '   ', D)).toEqual({ ms: D, source: 'default', rejected: [] });
  });

  it('only the variable: it replaces the default (duration or plain milliseconds)', () => {
    expect(resolveSyncPeriod(undefined, '30s', D)).toEqual({ ms: 30_000, source: 'env', rejected: [] });
    expect(resolveSyncPeriod(undefined, '1m30s', D)).toEqual({ ms: 90_000, source: 'env', rejected: [] });
    expect(resolveSyncPeriod(undefined, '500ms', D)).toEqual({ ms: 500, source: 'env', rejected: [] });
    expect(resolveSyncPeriod(undefined, ' 750 ', D)).toEqual({ ms: 750, source: 'env', rejected: [] });
  });

  it('an explicit period wins over the variable, which is reported as not applied', () => {
    expect(resolveSyncPeriod(5_000, undefined, D)).toEqual({ ms: 5_000, source: 'option', rejected: [] });
    expect(resolveSyncPeriod(5_000, '30s', D)).toEqual({ ms: 5_000, source: 'option', rejected: [], envIgnored: '30s' });
    // An explicit period equal to the default is still explicit (a StateSync's spec.syncPeriod: 10s).
    expect(resolveSyncPeriod(D, '1m', D)).toEqual({ ms: D, source: 'option', rejected: [], envIgnored: '1m' });
    // Even a bad variable does not matter then.
    expect(resolveSyncPeriod(5_000, 'soon', D)).toMatchObject({ ms: 5_000, source: 'option', rejected: [] });
  });

  it('invalid values are skipped and reported, never thrown', () => {
    for (const bad of ['soon', '0', '0s', '-5s', '1.5', '10 s', 'NaN']) {
      expect(resolveSyncPeriod(undefined, bad, D)).toEqual({ ms: D, source: 'default', rejected: [`${SYNC_PERIOD_ENV}=${JSON.stringify(bad)}`] });
    }
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(resolveSyncPeriod(bad, undefined, D)).toEqual({ ms: D, source: 'default', rejected: [`syncPeriodMs ${String(bad)}`] });
      // An invalid explicit period is as if none was given: the variable applies.
      expect(resolveSyncPeriod(bad, '2s', D)).toEqual({ ms: 2_000, source: 'env', rejected: [`syncPeriodMs ${String(bad)}`] });
    }
    expect(resolveSyncPeriod(-1, 'x', D).rejected).toHaveLength(2);
  });

  it('property: a valid explicit period always wins, whatever the variable says', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 9 }), fc.option(fc.string(), { nil: undefined }), (explicit, env) => {
        const r = resolveSyncPeriod(explicit, env, D);
        return r.ms === explicit && r.source === 'option' && r.rejected.length === 0;
      }),
    );
  });

  it('property: without an explicit period, a valid millisecond variable is used as is', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 10 ** 9 }), (ms) => resolveSyncPeriod(undefined, String(ms), D).ms === ms));
  });

  it('property: the result is always a positive finite period', () => {
    fc.assert(
      fc.property(fc.option(fc.double(), { nil: undefined }), fc.option(fc.string(), { nil: undefined }), (explicit, env) => {
        const { ms } = resolveSyncPeriod(explicit, env, D);
        return Number.isFinite(ms) && ms > 0;
      }),
    );
  });
});
