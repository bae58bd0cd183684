import { describe, expect, it } from 'vitest';
import { nearestRank, tailSummary } from './tail-latency.ts';

describe('nearestRank', () => {
  const oneToHundred = Float64Array.from({ length: 100 }, (_, i) => i + 1);

  it('picks the smallest sample with at least p % of the samples at or below it', () => {
    expect(nearestRank(oneToHundred, 50)).toBe(50);
    expect(nearestRank(oneToHundred, 99)).toBe(99);
    expect(nearestRank(oneToHundred, 100)).toBe(100);
    expect(nearestRank(oneToHundred, 0.5)).toBe(1);
    expect(nearestRank(oneToHundred, 50.5)).toBe(51);
  });

  it('never interpolates: the answer is always one of the samples', () => {
    const s = Float64Array.from([1, 10]);
    expect(nearestRank(s, 50)).toBe(1);
    expect(nearestRank(s, 51)).toBe(10);
  });

  it('p99.9 needs 1 000 samples before it differs from the maximum', () => {
    const thousand = Float64Array.from({ length: 1000 }, (_, i) => i);
    expect(nearestRank(thousand, 99.9)).toBe(998);
    const fewer = Float64Array.from({ length: 999 }, (_, i) => i);
    expect(nearestRank(fewer, 99.9)).toBe(998); // = the maximum
  });

  it('is NaN for no samples and refuses a percentile outside (0, 100]', () => {
    expect(nearestRank(new Float64Array(0), 50)).toBeNaN();
    expect(() => nearestRank(oneToHundred, 0)).toThrow(RangeError);
    expect(() => nearestRank(oneToHundred, 101)).toThrow(RangeError);
    expect(() => nearestRank(oneToHundred, Number.NaN)).toThrow(RangeError);
  });
});

describe('tailSummary', () => {
  it('sorts numerically (not as strings) and reports count, p50, p99, p999 and max', () => {
    // 10 000 samples: 9 980 fast ones, then a tail; given unsorted, with values that sort
    // differently as strings (9 > 10 as text).
    const samples = [...Array.from({ length: 9980 }, (_, i) => 1 + (i % 9)), ...Array.from({ length: 20 }, (_, i) => 100 + i)].reverse();
    const s = tailSummary(samples);
    expect(s.n).toBe(10_000);
    expect(s.p50).toBe(5);
    expect(s.p99).toBe(9);
    expect(s.p999).toBe(109); // the 9 990th smallest: the 10th of the tail
    expect(s.max).toBe(119);
  });

  it('does not reorder the caller’s array', () => {
    const samples = [3, 1, 2];
    tailSummary(samples);
    expect(samples).toEqual([3, 1, 2]);
  });

  it('is all NaN for no samples', () => {
    const s = tailSummary([]);
    expect(s.n).toBe(0);
    expect([s.p50, s.p99, s.p999, s.max].every(Number.isNaN)).toBe(true);
  });
});
