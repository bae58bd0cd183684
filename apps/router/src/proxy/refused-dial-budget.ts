/**
 * How many times a request may be sent again after its dial was refused (ECONNREFUSED). A refused
 * connection carried nothing, so resending is safe for every method, and the refusing endpoint is
 * quarantined at once, so each retry goes to another worker or, when none is left, waits in the
 * activator queue for a new one (bounded there by the revision's activation timeout). A rollout
 * that stops every worker of the old revision at once refuses several dials in a row: with only
 * `--dial-retries` (2, shared with dial timeouts, which each cost a connect timeout) such a
 * request failed 502 `upstream_unreachable` (137 of 475 failures in the 30-minute soak).
 * `--dial-retries 0` keeps meaning "never retry".
 */
export const REFUSED_DIAL_ATTEMPTS = 10;

export function refusedDialAttempts(dialRetries: number): number {
  return dialRetries <= 0 ? 0 : Math.max(dialRetries, REFUSED_DIAL_ATTEMPTS);
}
