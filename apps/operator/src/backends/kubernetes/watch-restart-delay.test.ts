import { describe, expect, it } from 'vitest';
import { watchRestartDelay } from './watch-restart-delay.ts';

describe('watchRestartDelay', () => {
  it('doubles from the first wait up to 30 s', () => {
    expect([1, 2, 3, 8, 9, 10, 100].map((f) => watchRestartDelay(f, 200))).toEqual([200, 400, 800, 25_600, 30_000, 30_000, 30_000]);
  });

  it('stops growing at 256 × the first wait when that is under 30 s', () => {
    expect([1, 9, 10, 100].map((f) => watchRestartDelay(f, 50))).toEqual([50, 12_800, 12_800, 12_800]);
  });

  it('is the formula the informer and the resource store had: min(30 s, first × 2^min(failures − 1, 8))', () => {
    for (const first of [1, 50, 100, 117, 118, 200, 1000, 40_000])
      for (let failures = 1; failures <= 70; failures++) expect(watchRestartDelay(failures, first)).toBe(Math.min(30_000, first * 2 ** Math.min(failures - 1, 8)));
  });
});
