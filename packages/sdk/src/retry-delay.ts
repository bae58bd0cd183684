/**
 * The SDK's exponential backoff: `initialMs` before the first retry, doubling, at most `maxMs`.
 * The same rule as `backoffDelay` in @orrery/spec; the SDK keeps this copy because it has no
 * dependencies by design (it runs inside users' functions).
 */
export function retryDelay(attempt: number, initialMs: number, maxMs: number): number {
  return Math.min(maxMs, initialMs * 2 ** Math.min(Math.max(0, attempt), 52));
}
