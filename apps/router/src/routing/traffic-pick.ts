/**
 * Revision pick by traffic split (docs/architecture.md "Traffic split"): weighted by percent, or — with a sticky key —
 * r = FNV-1a-64(key) mod totalPercent and the first target whose cumulative percent exceeds r,
 * so one key always lands on one revision while the split stays unchanged.
 */
import { fnv64Mod } from '../admit/fnv1a64.ts';
import type { FunctionRoute, RevisionRoute } from './route-table.ts';

/** First index whose cumulative value is greater than r (binary search). */
export function firstAbove(cumulative: Uint32Array, r: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid]! > r) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Weighted choice; `random` in [0, 1). Undefined when the function has no weighted target. */
export function pickWeighted(fn: FunctionRoute, random: number): RevisionRoute | undefined {
  if (fn.totalPercent <= 0) return undefined;
  return fn.weighted[firstAbove(fn.cumulative, Math.floor(random * fn.totalPercent))]!.route;
}

/** Stable choice for a key whose FNV-1a-64 is (hi, lo). */
export function pickSticky(fn: FunctionRoute, hi: number, lo: number): RevisionRoute | undefined {
  if (fn.totalPercent <= 0) return undefined;
  return fn.weighted[firstAbove(fn.cumulative, fnv64Mod(hi, lo, fn.totalPercent))]!.route;
}
