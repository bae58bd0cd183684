import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialDelayMs, jitterMs, nextBackoffMs, waitBeforeNextCycleMs } from './schedule.ts';

const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe('schedule', () => {
  it('first delay is in [0, period/2)', () => {
    expect(initialDelayMs(10_000, () => 0)).toBe(0);
    expect(initialDelayMs(10_000, () => 0.999999)).toBeLessThan(5_000);
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 3_600_000 }), unit, (p, r) => {
        const d = initialDelayMs(p, () => r);
        return d >= 0 && d < p / 2;
      }),
    );
  });

  it('jitter stays within ±10 %', () => {
    expect(jitterMs(10_000, () => 0)).toBe(9_000);
    expect(jitterMs(10_000, () => 0.5)).toBe(10_000);
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 3_600_000 }), unit, (p, r) => {
        const d = jitterMs(p, () => r);
        return d >= Math.floor(p * 0.9) && d <= Math.ceil(p * 1.1);
      }),
    );
  });

  it('backoff doubles from the period, caps, and resets on success', () => {
    let b = 10_000;
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) seen.push((b = nextBackoffMs(b, 10_000, 60_000, false)));
    expect(seen).toEqual([20_000, 40_000, 60_000, 60_000, 60_000]);
    expect(nextBackoffMs(60_000, 10_000, 60_000, true)).toBe(10_000);
  });

  it('the wait after errors never exceeds the cap; a healthy wait is the jittered period', () => {
    expect(waitBeforeNextCycleMs(60_000, 10_000, 60_000, () => 0.99)).toBe(60_000);
    expect(waitBeforeNextCycleMs(60_000, 10_000, 60_000, () => 0)).toBe(54_000);
    expect(waitBeforeNextCycleMs(10_000, 10_000, 60_000, () => 0.99)).toBe(10_980);
    // a period longer than the cap is not clipped (the cap bounds backoff, not the period)
    expect(waitBeforeNextCycleMs(120_000, 120_000, 60_000, () => 0.5)).toBe(120_000);
  });
});
