import { describe, expect, it } from 'vitest';
import { descriptorWindows, flatness, flatnessWindows, floor, median, floorsByStretch } from './flatness.ts';

const series = (values: Array<[number, number]>) => values.map(([t, value]) => ({ t, value }));

describe('median', () => {
  it('takes the middle, or the mean of the two middles, of unsorted input', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('floor', () => {
  it('takes the smallest value, NaN for none', () => {
    expect(floor([3, 1, 2])).toBe(1);
    expect(floor([])).toBeNaN();
  });
});

describe('floorsByStretch', () => {
  it('takes the smallest sample of each stretch from the start on, in order, skipping empty stretches', () => {
    const samples = [
      { t: 5, value: 1 }, // before the start: ignored
      { t: 10, value: 40 }, { t: 20, value: 38 }, { t: 29, value: 50 },
      { t: 30, value: 41 }, { t: 45, value: 39 },
      // 50–70 s: no sample
      { t: 75, value: 60 }, { t: 80, value: 45 },
    ];
    expect(floorsByStretch(samples, 10, 20)).toEqual([38, 39, 45]);
    expect(floorsByStretch([], 0, 60)).toEqual([]);
  });
});

describe('flatness', () => {
  const w = { warmupSeconds: 60, windowSeconds: 60, totalSeconds: 1800, tolerance: 0.1 };

  it('compares the first post-warm-up window with the last one, ignoring warm-up samples', () => {
    const r = flatness(series([[0, 10], [30, 50], [60, 100], [90, 102], [110, 98], [1750, 105], [1800, 107], [1790, 109]]), w);
    expect(r.first).toBe(100);
    expect(r.last).toBe(107);
    expect(r.change).toBeCloseTo(0.07);
    expect(r.flat).toBe(true);
    expect(r.samples).toEqual({ first: 3, last: 3 });
  });

  it('fails growth over the tolerance', () => {
    const r = flatness(series([[60, 100], [1800, 111]]), w);
    expect(r.flat).toBe(false);
    expect(r.change).toBeCloseTo(0.11);
  });

  it('does not count a shrinking series against it', () => {
    expect(flatness(series([[60, 100], [1800, 50]]), w).flat).toBe(true);
  });

  it('allows at least minSlack for small counts', () => {
    const fds = series([[60, 20], [1800, 23]]);
    expect(flatness(fds, w).flat).toBe(false);
    expect(flatness(fds, { ...w, minSlack: 3 }).flat).toBe(true);
    expect(flatness(series([[60, 20], [1800, 24]]), { ...w, minSlack: 3 }).flat).toBe(false);
  });

  it('sums a window up by its floor when asked: bursts of in-flight connections do not count, a raised floor does', () => {
    const bursty = series([[60, 40], [70, 150], [80, 41], [1780, 45], [1790, 170], [1800, 120]]);
    expect(flatness(bursty, w).flat).toBe(false); // medians 41 → 120
    const r = flatness(bursty, { ...w, statistic: 'floor', minSlack: 3 });
    expect([r.first, r.last]).toEqual([40, 45]);
    expect(r.flat).toBe(false); // 40 → 45: one more than the 10 % allowed
    expect(flatness(series([[60, 40], [70, 150], [1780, 44], [1790, 170]]), { ...w, statistic: 'floor', minSlack: 3 }).flat).toBe(true);
  });

  it('is not flat when a window has no sample', () => {
    const r = flatness(series([[60, 100]]), w);
    expect(r.last).toBeNaN();
    expect(r.flat).toBe(false);
  });
});

describe('flatnessWindows', () => {
  it('uses the first sixth (5 minutes) as warm-up and one-minute windows for the 30-minute run', () => {
    expect(flatnessWindows(1800)).toEqual({ warmupSeconds: 300, windowSeconds: 60 });
    expect(flatnessWindows(600)).toEqual({ warmupSeconds: 100, windowSeconds: 60 });
  });

  it('scales down for the 3-minute run without overlapping windows', () => {
    const w = flatnessWindows(180);
    expect(w).toEqual({ warmupSeconds: 30, windowSeconds: 50 });
    expect(w.warmupSeconds + 2 * w.windowSeconds).toBeLessThanOrEqual(180);
  });
});

describe('descriptorWindows', () => {
  it('takes the first and the last third after the same warm-up', () => {
    expect(descriptorWindows(1800)).toEqual({ warmupSeconds: 300, windowSeconds: 500 });
    expect(descriptorWindows(180)).toEqual({ warmupSeconds: 30, windowSeconds: 50 });
  });

  it('passes a floor that swings with the churn and catches a slow leak', () => {
    // Floors per 2 minutes as in the 2026-12-05 runs: 36–43 with no trend; the last minute lands at 41.
    const swing = [37, 40, 36, 43, 38, 36, 42, 37, 39, 36, 41, 43, 41];
    const samples = (floors: number[]) => floors.flatMap((v, i) => [{ t: 300 + i * 120 + 5, value: v }, { t: 300 + i * 120 + 60, value: v + 30 }]);
    const opts = { totalSeconds: 1800, tolerance: 0.1, minSlack: 3, statistic: 'floor' as const };
    expect(flatness(samples(swing), { ...flatnessWindows(1800), ...opts }).flat).toBe(false);
    expect(flatness(samples(swing), { ...descriptorWindows(1800), ...opts }).flat).toBe(true);
    // One descriptor leaked every 2 minutes: +12 by the end, every later floor raised.
    const leak = swing.map((v, i) => 36 + i);
    expect(flatness(samples(leak), { ...descriptorWindows(1800), ...opts }).flat).toBe(false);
  });
});
