/**
 * Whether a tRPC call failed below HTTP: the browser's fetch rejected (a connection reset or
 * closed under the request, the console restarting) and no answer came back. Browsers word it
 * differently ("Failed to fetch", "NetworkError when attempting to fetch resource.", "Load
 * failed"), but each rejects with a TypeError, which tRPC keeps as the error's cause. An answer
 * from the API (any status) or an abort is not a network failure.
 */
export function isNetworkFailure(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { cause?: unknown; data?: unknown; shape?: unknown };
  return e.cause instanceof TypeError && e.data == null && e.shape == null;
}

/**
 * How often a login is sent again after a network failure, and how long to wait first. A login is
 * safe to repeat (at worst a second session, and the first one's cookie never arrived), so a user
 * does not see "Failed to fetch" for a connection the browser lost under the request.
 */
export const LOGIN_NETWORK_RETRIES = 2;
export const loginRetryDelayMs = (attempt: number): number => 400 * 2 ** attempt;

/** TanStack Query's `retry` for the login mutation. */
export const retryLoginAfter = (failures: number, err: unknown): boolean => failures < LOGIN_NETWORK_RETRIES && isNetworkFailure(err);
