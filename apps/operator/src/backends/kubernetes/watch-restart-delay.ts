import { backoffDelay } from '@orrery/spec';

/**
 * How long a broken watch waits before it reconnects after its `failures`-th failure in a row
 * (1 = the first): `firstMs`, doubling, at most 256 × `firstMs` and never more than 30 s. The
 * 256× ceiling is the exponent cap (2^8) these watches always had: with the default 200 ms it
 * never bites (51.2 s > 30 s), but a test's 50 ms restarts stop growing at 12.8 s.
 */
export function watchRestartDelay(failures: number, firstMs: number): number {
  return backoffDelay(failures - 1, { initialMs: firstMs, maxMs: Math.min(30_000, firstMs * 2 ** 8) });
}
