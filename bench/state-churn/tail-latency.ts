/**
 * Tail percentiles by nearest rank: the p-th percentile is the smallest sample with at least p %
 * of the samples at or below it. No interpolation, so every figure printed is a latency that
 * was actually observed; p999 of fewer than 1 000 samples is therefore the maximum, which is
 * why the count is always printed beside it.
 */
export interface TailSummary {
  n: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

/** `sorted` ascending; NaN when empty. */
export function nearestRank(sorted: ArrayLike<number>, p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  // p × n / 100 in floating point can land a hair above an exact integer (99.9 % of 10 000 gives
  // 9 990.000000000002): take that as the integer, or the rank would be one too high.
  const rank = Math.ceil((p * n) / 100 - 1e-9);
  return sorted[Math.min(n, Math.max(1, rank)) - 1]!;
}

export function tailSummary(samples: readonly number[]): TailSummary {
  const sorted = Float64Array.from(samples).sort();
  return {
    n: sorted.length,
    p50: nearestRank(sorted, 50),
    p99: nearestRank(sorted, 99),
    p999: nearestRank(sorted, 99.9),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}
