/**
 * `Orrery-Invocation-Id`: the name the router gives one invocation of a Function whose template
 * says `onWorkerLoss: replay` (docs/router.md "Replay after worker loss"). Every attempt of the
 * request — the first, and a replay on another worker after the first worker died — carries the
 * same id, so the runtime can key its ctx.state calls by it (`Idempotency-Key:
 * <invocationId>.<n>`) and a replay gets the first run's answers instead of applying them again.
 * Only the router mints ids: it drops any a client sends (docs/security.md).
 */

/** Request header, as written in docs and sent by the router. */
export const INVOCATION_ID_HEADER = 'Orrery-Invocation-Id';
/** The same, lower-case, as node hands incoming names over (`req.headers[INVOCATION_ID_HEADER_LOWER]`). */
export const INVOCATION_ID_HEADER_LOWER = 'orrery-invocation-id';

/** 128 random bits as 32 lower-case hex digits. */
export const INVOCATION_ID_PATTERN = /^[0-9a-f]{32}$/;

/** A value the router could have minted (anything else did not come from a router). */
export function isInvocationId(value: string | undefined): value is string {
  return value !== undefined && INVOCATION_ID_PATTERN.test(value);
}
