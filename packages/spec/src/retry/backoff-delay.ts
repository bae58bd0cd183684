/**
 * The exponential backoff every Orrery retry loop uses: `initialMs` before the first retry,
 * doubling with each further attempt, never more than `maxMs`. Jitter, where a caller wants it,
 * is applied by the caller on top (callers differ: full jitter against thundering herds, ±20 %
 * for heartbeats). The SDK keeps its own copy (packages/sdk/src/retry-delay.ts): it has no
 * dependencies by design.
 */
export interface BackoffSteps {
  initialMs: number;
  maxMs: number;
}

/** The wait before retry number `attempt` (0 = the first retry). */
export function backoffDelay(attempt: number, steps: BackoffSteps): number {
  // 2^52 × any sane initialMs is past every max: capping the exponent keeps the product finite.
  return Math.min(steps.maxMs, steps.initialMs * 2 ** Math.min(Math.max(0, attempt), 52));
}
