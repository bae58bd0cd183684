import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff-delay.ts';

describe('backoffDelay', () => {
  it('starts at initialMs, doubles per attempt and stops at maxMs', () => {
    const steps = { initialMs: 200, maxMs: 5000 };
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, steps))).toEqual([200, 400, 800, 1600, 3200, 5000, 5000]);
  });

  it('stays finite and at maxMs for huge attempts; a negative attempt is the first', () => {
    expect(backoffDelay(10_000, { initialMs: 1, maxMs: 30_000 })).toBe(30_000);
    expect(backoffDelay(-3, { initialMs: 50, maxMs: 2000 })).toBe(50);
  });

  it('maxMs below initialMs wins', () => {
    expect(backoffDelay(0, { initialMs: 500, maxMs: 100 })).toBe(100);
  });
});
