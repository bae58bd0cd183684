import type { LoadResult } from './load.ts';

/**
 * The cells of a benchmark table row that sets a measured side against its baseline: each side's
 * ops/s, p50 and p99 (ms), then the throughput and p99 ratios and the errors of both. The widths
 * are each table's column widths, so the cells line up under its header.
 */
export function comparisonCells(measured: LoadResult, base: LoadResult, widths: { measured: [number, number, number]; base: [number, number, number] }): string[] {
  const side = (r: LoadResult, [ops, p50, p99]: [number, number, number]) => [fmt(r.opsPerSec).padStart(ops), fmt(r.p50Ms, 2).padStart(p50), fmt(r.p99Ms, 2).padStart(p99)];
  return [
    ...side(measured, widths.measured),
    '|',
    ...side(base, widths.base),
    '|',
    fmt(measured.opsPerSec / base.opsPerSec, 2).padStart(9),
    fmt(measured.p99Ms / base.p99Ms, 2).padStart(10),
    String(measured.errors + base.errors).padStart(7),
  ];
}

/** A number with `d` decimals, or '-' for one that could not be measured (NaN, a ratio over 0). */
export const fmt = (n: number, d = 0): string => (Number.isFinite(n) ? n.toFixed(d) : '-');
