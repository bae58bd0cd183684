/**
 * `Idempotency-Key` on statesvc's writes (docs/state.md "Idempotent writes"): the header names,
 * the rule a key must follow, and what a stored outcome costs against a namespace byte budget.
 * statesvc and statestore both use these, so the rule and the accounting have one definition.
 */

/** Request header naming a client's write (draft-ietf-httpapi-idempotency-key-header). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Response header on an answer that was stored by an earlier request with the same key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
/** Longest key, in characters (all ASCII, so also bytes). Stripe's limit; a UUID is 36. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** Retention of a stored outcome when the keyspace sets none (`spec.state.idempotencyRetention`). */
export const DEFAULT_IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;

/**
 * Bytes one stored outcome counts against the namespace byte budget: the key itself plus a
 * fixed 64 for the request hash (32 bytes), the outcome, the version and the deadline. A
 * documented constant rather than a measured row size, so both drivers count the same.
 */
export const IDEMPOTENCY_RECORD_OVERHEAD_BYTES = 64;
export const idempotencyRecordBytes = (key: string): number => IDEMPOTENCY_RECORD_OVERHEAD_BYTES + key.length;

// Visible ASCII except '"' and '\' (which would need escaping inside the draft's sf-string form).
const KEY_CHARS = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The key a header value names, or why it names none. One optional pair of surrounding double
 * quotes is removed (the IETF draft sends the key as a structured-field string, most clients
 * send it bare: both name the same key). A header sent twice arrives as an array (or joined
 * with ", ", which the space refuses): never guess which one the client meant.
 */
export function parseIdempotencyKey(value: string | string[] | undefined): { key?: string; problem?: string } {
  if (value === undefined) return {};
  if (Array.isArray(value)) return { problem: `send ${IDEMPOTENCY_KEY_HEADER} once` };
  const key = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  if (key.length === 0) return { problem: `${IDEMPOTENCY_KEY_HEADER} is empty; send a unique id per write, e.g. a UUID` };
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) return { problem: `${IDEMPOTENCY_KEY_HEADER} is longer than ${IDEMPOTENCY_KEY_MAX_LENGTH} characters; a UUID (36) is enough` };
  if (!KEY_CHARS.test(key)) {
    return { problem: `${IDEMPOTENCY_KEY_HEADER} may hold only visible ASCII characters other than '"' and '\\' (no spaces, no non-ASCII); a UUID is a good key` };
  }
  return { key };
}
