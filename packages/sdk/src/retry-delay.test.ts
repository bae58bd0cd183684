import { describe, expect, it } from 'vitest';
import { backoffDelay } from '@orrery/spec';
import { retryDelay } from './retry-delay.ts';

describe('retryDelay', () => {
  it('doubles from initialMs up to maxMs', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => retryDelay(a, 10, 500))).toEqual([10, 20, 40, 80, 160, 320, 500]);
  });

  it('is the same rule as @orrery/spec backoffDelay (the SDK keeps a copy: it has no dependencies)', () => {
    for (const [initialMs, maxMs] of [[10, 500], [100, 2000], [50, 5000], [1, 1]] as const) {
      for (let a = -1; a < 70; a++) expect(retryDelay(a, initialMs, maxMs)).toBe(backoffDelay(a, { initialMs, maxMs }));
    }
  });
});
